package check

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

// sampleName is the file name under which the embedded sample is reported.
const sampleName = "sample.jsonl"

// sampleCapture is a short MCP session through a gateway that turns numeric
// ids into strings (written from the MCP specification's message shapes).
//
//go:embed sample.jsonl
var sampleCapture []byte

// checker runs "rpcid check" over one or more captures.
type checker struct {
	w     *bufio.Writer
	json  bool
	sarif *sarifWriter // -sarif
	// explained: where the capture being checked explained what (text
	// output).
	explained explained
	buf       bytes.Buffer // one -json line
	enc       *json.Encoder
	files     int
	errors    int
	warnings  int
	counts    counts
	verdict   verdictTally // what the findings break, for the summary
	// otherEvents counts the SSE events of other types than "" and
	// "message" (with spaces around it or not), which are not examined.
	otherEvents map[string]int
	// logOther counts the lines of MCP hosts' logs that hold no message.
	logOther int
	// partial counts the messages read from captures that could not be
	// read to their end, which are not counted as checked.
	partial int
}

// counts are the messages seen, for the summary.
type counts struct {
	requests, responses, notifications int
	// redelivered counts the SSE events of a HAR that repeat an event of
	// their session (see capture.sse), which are not messages again.
	redelivered int
}

// stdinCapture decides what check reads when no FILE is given. It returns
// standard input (buffered) when it holds a capture: a pipe or a file with at
// least one byte. Otherwise it returns nil and why, for the note on standard
// error: a terminal or another character device (such as /dev/null), a
// standard input that is not open, or one that ends before its first byte.
// Then the embedded sample is checked, so that "go run ./cmd/rpcid check"
// shows what check does wherever it is started; "rpcid check -" reads
// standard input whatever it is.
//
// If no byte has arrived after stdinWait, it says on stderr that it is
// waiting for standard input, so that a pipe left open without data (a
// harness that never closes it) does not hang silently.
func stdinCapture(r io.Reader, stderr io.Writer) (io.Reader, string) {
	switch f := r.(type) {
	case *os.File:
		st, err := f.Stat()
		if err != nil {
			return nil, "standard input is not open"
		}
		if st.Mode()&os.ModeCharDevice != 0 {
			return nil, "standard input is a terminal or another device, not a pipe or file"
		}
	case interface{ IsTerminal() bool }:
		if f.IsTerminal() {
			return nil, "standard input is a terminal"
		}
	}
	br := bufio.NewReader(r)
	said := make(chan struct{})
	waiting := time.AfterFunc(stdinWait, func() {
		defer close(said)
		fmt.Fprintln(stderr, "rpcid check: no FILE given: waiting for a capture on standard input, which is open but has sent nothing yet (give a FILE, or close standard input to check the embedded sample)")
	})
	_, err := br.Peek(1)
	if !waiting.Stop() {
		<-said // nothing else writes to stderr meanwhile
	}
	if err == io.EOF {
		return nil, "standard input is empty"
	}
	return br, ""
}

// stdinWait is how long check waits for the first byte of standard input,
// when no FILE is given, before it says it is waiting.
var stdinWait = 2 * time.Second

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := Cmd.NewFlags(stderr)
	jsonOut := fs.Bool("json", false, "print each finding as a JSON object (summary to standard error)")
	sarifOut := fs.Bool("sarif", false, "print findings as a SARIF 2.1.0 log (summary to standard error)")
	if code, ok := Cmd.ParseFlags(fs, args, stdout); !ok {
		return code
	}
	if *jsonOut && *sarifOut {
		fmt.Fprintln(stderr, "rpcid check: -json and -sarif cannot be used together")
		fs.Usage()
		return 2
	}
	c := &checker{w: bufio.NewWriterSize(stdout, 64<<10), json: *jsonOut, otherEvents: map[string]int{}}
	c.enc = json.NewEncoder(&c.buf)
	c.enc.SetEscapeHTML(false)
	if *sarifOut {
		c.sarif = newSARIFWriter(c.w)
	}
	var unread []string // for -sarif: what could not be read

	status := 0
	files := fs.Args()
	if n := slices.Index(files, "-"); n >= 0 && slices.Contains(files[n+1:], "-") {
		// Standard input can be read to its end once: a second "-" would
		// be an empty capture.
		fmt.Fprintln(stderr, "rpcid check: standard input (-) is named more than once; it can be read only once")
		fs.Usage()
		return 2
	}
	unreadable := 0
	fail := func(what string, err error) {
		c.w.Flush()
		hint := ""
		if strings.HasPrefix(what, "-") && errors.Is(err, os.ErrNotExist) && !slices.Contains(args, "--") {
			// (After "--", a name starting with "-" is a FILE on purpose.)
			hint = " (flags go before the FILEs)"
		}
		msg := fmt.Sprintf("rpcid check: could not read %s: %s%s", base.Printable(what), base.Printable(cause(err).Error()), hint)
		fmt.Fprintln(stderr, msg)
		unread = append(unread, msg)
		status = 2
		unreadable++
	}
	if len(files) == 0 {
		if in, why := stdinCapture(stdin, stderr); in == nil {
			fmt.Fprintf(stderr, "rpcid check: no FILE given and %s: checking the embedded sample %s (an MCP session through a gateway that turns numeric ids into strings); \"rpcid check -h\" tells more\n", why, sampleName)
			if err := c.check(sampleName, bytes.NewReader(sampleCapture)); err != nil {
				fail(sampleName, err)
			}
		} else {
			stdin = in
			files = []string{"-"}
		}
	}
	for _, name := range files {
		if name == "-" {
			if err := c.check("<stdin>", stdin); err != nil {
				fail("standard input", err)
			}
		} else if err := c.checkFile(name); err != nil {
			fail(name, err)
		}
	}
	summary := c.summary()
	if unreadable > 0 {
		summary += "; " + plural(unreadable, "file") + " could not be read"
		if c.partial > 0 {
			// Their findings so far were printed, and are counted.
			summary += fmt.Sprintf(" to the end (%s read before the fault, not counted above)", plural(c.partial, "message"))
		}
	}
	if v := c.verdict.verdict(); v != "" {
		summary += ". " + v
	}
	if c.json || c.sarif != nil {
		if c.sarif != nil {
			c.sarif.finish(exitStatus(status, c), unread, summary, c.encode)
		}
		c.w.Flush()
		fmt.Fprintln(stderr, summary)
	} else {
		fmt.Fprintln(c.w, summary)
	}
	if err := c.w.Flush(); err != nil {
		fmt.Fprintf(stderr, "rpcid check: writing output: %v\n", err)
		return 2
	}
	return exitStatus(status, c)
}

// exitStatus returns check's exit status: status (2) when a capture could
// not be read, else 1 when there are findings, else 0.
func exitStatus(status int, c *checker) int {
	if status != 0 {
		return status
	}
	if c.errors+c.warnings > 0 {
		return 1
	}
	return 0
}

// cause returns the error of a failed file operation without the
// operation and path, which the message already names.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// checkFile checks the named file.
func (c *checker) checkFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return err
	} else if st.IsDir() {
		return errors.New("is a directory")
	}
	return c.check(name, f)
}

// flushReader flushes w before each read from r, so that findings are
// written whenever check waits for input (a terminal, a capture still
// being recorded) and otherwise in large blocks.
type flushReader struct {
	r io.Reader
	w *bufio.Writer
}

func (f *flushReader) Read(p []byte) (int, error) {
	f.w.Flush()
	return f.r.Read(p)
}

// isZlib reports whether br starts with a zlib stream (RFC 1950 section
// 2.2) as zlib writes it: deflate with a 32 KiB window (0x78), a check of
// 31, no preset dictionary, and a first block that decodes. Text that
// starts with such two bytes ("x^", "x\x9c"; "x " asks for a dictionary) is
// text.
func isZlib(br *bufio.Reader) bool {
	if b, _ := br.Peek(2); len(b) < 2 || b[0] != 0x78 || (uint(b[0])<<8|uint(b[1]))%31 != 0 {
		return false
	}
	b, _ := br.Peek(min(64<<10, br.Size()))
	zr, err := zlib.NewReader(bytes.NewReader(b))
	if err != nil {
		return false
	}
	_, err = zr.Read(make([]byte, 1))
	return err == nil || err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)
}

// gzipReader reads a gzip or zlib stream, its faults (a truncated or
// corrupt file) made read errors, so that they are not taken for the end
// of a truncated capture.
type gzipReader struct{ r io.Reader }

func (g gzipReader) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	if err != nil && err != io.EOF {
		err = compressError(err)
	}
	return n, err
}

func compressError(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errors.New("the compressed file is truncated")
	}
	msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "gzip: "), "zlib: ")
	return fmt.Errorf("the compressed file is corrupt: %s", msg)
}

// check checks one capture read from r, reported under name. It returns
// only read errors; problems in the content are findings. A capture that
// could not be read to its end is not counted.
func (c *checker) check(name string, r io.Reader) error {
	s := newCapture(c, name)
	c.explained = explained{}
	br := bufio.NewReaderSize(&flushReader{r, c.w}, 1<<20)
	zipped, gzipped := false, false
	if b, _ := br.Peek(2); len(b) == 2 && (b[0] == 0x1f && b[1] == 0x8b || isZlib(br)) {
		// A gzip file (capture.har.gz, session.jsonl.gz) or a zlib stream
		// (mitmproxy's .zhar): positions are those of the text it holds.
		zipped = true
		var zr io.ReadCloser
		var err error
		if b[0] == 0x1f {
			gzipped = true
			zr, err = gzip.NewReader(br)
		} else {
			zr, err = zlib.NewReader(br)
		}
		if err != nil {
			return compressError(err)
		}
		defer zr.Close()
		br = bufio.NewReaderSize(gzipReader{zr}, 1<<20)
	}
	bom := false
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xEF\xBB\xBF")) {
		br.Discard(3)
		bom = true
	}
	var err error
	if enc, mark := byteOrderMark(br); enc != "" {
		// UTF-16 or UTF-32, as Windows PowerShell 5's > writes text (UTF-16
		// LE): JSON between systems is UTF-8 (RFC 8259 section 8.1).
		s.encoding = fmt.Sprintf("the file is %s (it starts with the byte order mark % X), and check reads UTF-8 only: convert it first (iconv -f %s -t UTF-8)", enc, mark, enc)
		if enc == "UTF-16" {
			s.encoding = s.encoding[:len(s.encoding)-1] + ", or in PowerShell Out-File -Encoding utf8)"
		}
		if zipped {
			how := "decompress it, then iconv -f " + enc + " -t UTF-8"
			if gzipped {
				how = "gzip -dc, then iconv -f " + enc + " -t UTF-8"
			}
			s.encoding = fmt.Sprintf("the text the compressed file holds is %s (it starts with the byte order mark % X), and check reads UTF-8 only: convert it first (%s)", enc, mark, how)
		}
		if bom {
			// Converted to UTF-8 as if it were text in another encoding, or
			// a UTF-8 mark written before UTF-16 text: which, the bytes do
			// not tell.
			s.encoding = fmt.Sprintf("the file starts with a UTF-8 byte order mark followed by the %s one (EF BB BF % X), and check reads UTF-8 only", enc, mark)
		}
		_, err = io.Copy(io.Discard, br)
	} else {
		var f format = linesFormat{s}
		if isHAR(br) {
			s.har = true
			if bom {
				s.harBase = 3
			}
			f = harFormat{s}
		}
		err = f.read(br)
	}
	if err == nil && zipped {
		// Read to the end, where gzip checks what it held.
		_, err = io.Copy(io.Discard, br)
	}
	if err != nil {
		c.partial += s.counts.requests + s.counts.responses + s.counts.notifications
		return err
	}
	c.files++
	c.counts.requests += s.counts.requests
	c.counts.responses += s.counts.responses
	c.counts.notifications += s.counts.notifications
	c.counts.redelivered += s.counts.redelivered
	s.finish()
	return nil
}

// byteOrderMark returns the encoding whose byte order mark starts br, and
// the mark: UTF-32 (00 00 FE FF, FF FE 00 00) or UTF-16 (FE FF, FF FE);
// "" if none.
func byteOrderMark(br *bufio.Reader) (enc string, mark []byte) {
	b, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(b, []byte{0, 0, 0xfe, 0xff}), bytes.HasPrefix(b, []byte{0xff, 0xfe, 0, 0}):
		return "UTF-32", b[:4]
	case bytes.HasPrefix(b, []byte{0xfe, 0xff}), bytes.HasPrefix(b, []byte{0xff, 0xfe}):
		return "UTF-16", b[:2]
	}
	return "", nil
}
