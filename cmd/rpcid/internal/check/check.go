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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
	"github.com/rpcid/rpcid/internal/scan"
)

// sampleName is the file name under which the embedded sample is reported.
const sampleName = "sample.jsonl"

// sampleCapture is a short MCP session through a gateway that turns numeric
// ids into strings (written from the MCP specification's message shapes).
//
//go:embed sample.jsonl
var sampleCapture []byte

// A finding is one problem found in a capture. Its JSON form is what
// "check -json" prints.
type finding struct {
	File    string          `json:"file"`
	Line    int             `json:"line,omitempty"`
	Entry   int             `json:"entry,omitempty"`
	Level   string          `json:"level"`
	Kind    string          `json:"kind"`
	Message string          `json:"message"`
	ID      json.RawMessage `json:"id,omitempty"`
	// Method is the method of the request the finding is about.
	Method string `json:"method,omitempty"`
	// Server is the server whose lines of an MCP host's log the finding
	// is about, once the log has named more than one (cut like Method).
	Server  string      `json:"server,omitempty"`
	Request *requestRef `json:"request,omitempty"`
	Lax     []laxMatch  `json:"lax,omitempty"`
	// Number: what SDKs make of a large or fractional numeric id.
	Number *numberFacts `json:"number,omitempty"`
	// Error is the error object of a null-id response (up to 1 KiB).
	Error json.RawMessage `json:"error,omitempty"`
	// AnsweredLine or AnsweredEntry: where a request answered twice got
	// its first answer.
	AnsweredLine  int `json:"answeredLine,omitempty"`
	AnsweredEntry int `json:"answeredEntry,omitempty"`
	// Note: why a request may have gone unanswered (HAR: its HTTP status),
	// or why an unmatched response's request may be missing (HAR: the
	// request body of its exchange is not in the capture).
	Note string `json:"note,omitempty"`
	// Hint: direction markers would settle who sent what.
	Hint string `json:"hint,omitempty"`
	// Where an invalid message is: Body ("request", "response" or
	// "websocket") and Event (SSE, from 1) or Frame (WebSocket message,
	// from 1) in a HAR entry, Element of a batch (from 1), and
	// the fault's Column on a JSON Lines line (from 1) or Offset in a HAR
	// body or event (bytes, from 0).
	Body  string `json:"body,omitempty"`
	Event int    `json:"event,omitempty"`
	Frame int    `json:"frame,omitempty"`
	// BodyLine is the line (from 1) of a newline-delimited HAR body
	// (NDJSON, JSON Lines, json-seq).
	BodyLine int    `json:"bodyLine,omitempty"`
	Element  int    `json:"element,omitempty"`
	Column   int    `json:"column,omitempty"`
	Offset   *int64 `json:"offset,omitempty"`

	// short and why: the message without its explanation, and the
	// explanation, for the text output (see explained).
	short, why string
}

// requestRef points at a request from another finding.
type requestRef struct {
	Line   int             `json:"line,omitempty"`
	Entry  int             `json:"entry,omitempty"`
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method,omitempty"`
}

// laxMatch says that a lax normalizer would have matched an unmatched
// response to a request.
type laxMatch struct {
	// Normalizer is "JavaScript Number()", "Python int()" or
	// "Rust i64::from_str".
	Normalizer string `json:"normalizer"`
	// Value is what the normalizer made of the id, in that language's
	// spelling.
	Value string `json:"value"`
	// Verdict is "malformed" when the id is a loose spelling of the
	// request's id (the SDK accepts a malformed id), "different" when it
	// is another id (the SDK delivers the response to a request whose id
	// differs, which may be the wrong call).
	Verdict string     `json:"verdict"`
	Request requestRef `json:"request"`
}

// Finding levels and kinds.
const (
	levelError   = "error"
	levelWarning = "warning"

	kindTypeChanged     = "type-changed"
	kindSpellingChanged = "spelling-changed"
	kindUnmatched       = "unmatched-response"
	kindUnanswered      = "unanswered-request"
	kindDuplicate       = "duplicate-id"
	kindUnsafeInteger   = "unsafe-integer"
	kindFractional      = "fractional-id"
	kindNullRequest     = "null-request-id"
	kindNullResponse    = "null-id-response"
	kindInvalid         = "invalid-message"
	kindAmbiguousEvent  = "ambiguous-event"
	kindByteOrderMark   = "byte-order-mark"
	kindAnsweredTwice   = "answered-twice"
	kindNothing         = "nothing-to-check"
)

// kinds lists every finding kind, for the usage text and its tests.
var kinds = []string{kindTypeChanged, kindSpellingChanged, kindUnmatched, kindAnsweredTwice, kindUnanswered,
	kindDuplicate, kindUnsafeInteger, kindFractional, kindNullRequest, kindNullResponse, kindInvalid, kindAmbiguousEvent, kindByteOrderMark, kindNothing}

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
	tally     tally // for the verdict
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
	// their session (see session.sse), which are not messages again.
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
	jsonOut := fs.Bool("json", false, "print findings as JSON objects, one per line (summary to standard error)")
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
	if v := c.tally.verdict(); v != "" {
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
	s := newSession(c, name)
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
	} else if isHAR(br) {
		s.har = true
		if bom {
			s.harBase = 3
		}
		err = s.readHAR(br)
	} else {
		err = s.readJSONLines(br)
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

// isHAR reports whether the capture is a HAR file: its first JSON value is
// an object with a "log" member (wherever it is) whose value is an object,
// and no member of a JSON-RPC message (jsonrpc, id, method, result, error,
// params): an object with such a member is a message, and the capture JSON
// Lines. It reads no more than it needs to decide, and at most 1 MiB: a
// first object longer than that is decided on its first 1 MiB.
func isHAR(br *bufio.Reader) bool {
	// Each undecided look asks for twice as many bytes, so that input
	// arriving a byte at a time costs O(n log n), not O(n^2).
	for n := 1; ; n = min(2*br.Buffered(), br.Size()) {
		_, err := br.Peek(n)
		more := err == nil && n < br.Size() // else end of input or a full buffer: decide on what there is
		b, _ := br.Peek(br.Buffered())
		verdict, decided := harVerdict(b)
		if decided || !more {
			return verdict
		}
	}
}

// harVerdict decides isHAR on the first bytes of a capture: decided is
// false when more bytes are needed; verdict is then the best guess.
func harVerdict(b []byte) (verdict, decided bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil {
		return false, !truncated(err)
	} else if t != json.Delim('{') {
		return false, true
	}
	harLog := false // a "log" member whose value is an object
	for {
		t, err := dec.Token()
		if err != nil {
			return harLog, !truncated(err)
		}
		name, ok := t.(string)
		if !ok { // the end of the object
			return harLog, true
		}
		switch name {
		case "jsonrpc", "id", "method", "result", "error", "params":
			return false, true
		case "log":
			t, err := dec.Token()
			if err != nil {
				return false, !truncated(err)
			}
			if t != json.Delim('{') {
				if err := skipRest(dec, t); err != nil {
					return false, !truncated(err)
				}
				continue
			}
			harLog = true
			if err := skipRest(dec, t); err != nil {
				return true, !truncated(err)
			}
		default:
			t, err := dec.Token()
			if err == nil {
				err = skipRest(dec, t)
			}
			if err != nil {
				return harLog, !truncated(err)
			}
		}
	}
}

// truncated reports whether a decoding error is the end of the bytes seen.
func truncated(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// skipRest skips the rest of a value whose first token was t.
func skipRest(dec *json.Decoder, t json.Token) error {
	if t != json.Delim('{') && t != json.Delim('[') {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// maxLine is the longest line of a JSON Lines capture that check examines,
// in bytes: a longer one (more than any JSON-RPC peer takes as one message;
// a few KB of gzip can hold gigabytes of one line) is reported and skipped:
// its first maxLine bytes are held, the rest is not.
var maxLine = 64 << 20

// readJSONLines reads a JSON Lines capture, one line at a time, examining
// lines of up to maxLine bytes.
func (s *session) readJSONLines(br *bufio.Reader) error {
	var long []byte
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: collect it in long, which is
			// reused for the next long line, up to maxLine bytes.
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= maxLine {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			if len(long) > maxLine {
				n := int64(len(long))
				for errors.Is(err, bufio.ErrBufferFull) {
					line, err = br.ReadSlice('\n')
					n += int64(len(line))
				}
				s.bytes += n
				if err == nil || err == io.EOF {
					if err == nil {
						n-- // its LF
					}
					if s.nonBlank == 0 {
						s.replayHeld() // the capture is JSON Lines, as without them
					}
					s.nonBlank++
					s.report(position{line: lineNo}, levelError, kindInvalid, fmt.Sprintf("the line is %d bytes long, more than check reads as one message (%d MiB), and is not examined", n, maxLine>>20), nil)
					s.lostLine(position{line: lineNo}, long)
				}
				long = nil
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return err
				}
				continue
			}
			line = long
		}
		s.bytes += int64(len(line))
		if len(line) > 0 && (err == nil || err == io.EOF) {
			// (Bytes before a read error are not a line of the capture:
			// the error is reported instead.)
			s.atEOF = err == io.EOF
			s.line(lineNo, line)
			s.atEOF = false
		}
		if cap(long) > 16<<20 {
			long = nil // do not keep a huge buffer for the rest of the file
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// lostLine records a line too long to examine, whose first bytes are
// start, as a text that may hold responses (see lostText): in a JSON Lines
// capture its direction marker says whose, and its start what it may
// answer; in an MCP host's log it may answer any request of any server.
func (s *session) lostLine(pos position, start []byte) {
	what := fmt.Sprintf("is longer than %d MiB and was not examined", maxLine>>20)
	if s.log != logNone {
		s.lostAll = lostAny{s.seq, pos.String() + ", which may hold it, " + what}
		return
	}
	i := skipSpace(start, 0)
	dir := fromUnknown
	if i < len(start) && (start[i] == '>' || start[i] == '<') {
		dir = fromClient
		if start[i] == '<' {
			dir = fromServer
		}
		i = skipSpace(start, i+1)
	}
	s.lostText(pos, dir, start[i:], validPrefix(start[i:]), what)
}

// validPrefix returns how many bytes at the start of b are valid JSON so
// far: all of them, or those before the first the scanner refuses.
func validPrefix(b []byte) int {
	var sc []scan.Message
	if _, _, err := scanText(nil, &sc, b); err != nil && err.Offset >= 0 {
		return int(err.Offset)
	}
	return len(b)
}

// line handles one line of a JSON Lines capture.
func (s *session) line(lineNo int, line []byte) {
	pos := position{line: lineNo}
	start := 0
	for start < len(line) && isJSONSpace(line[start]) {
		start++
	}
	end := len(line)
	for end > start && isJSONSpace(line[end-1]) {
		end--
	}
	if start == end {
		return
	}
	if s.nonBlank == 0 {
		kind, sent := logKind(line[start:end])
		if len(s.held) < maxHeld && end-start <= maxHeldLen && kind == logNone && (isTailHeader(line[start:end]) || mayLeadLog(line[start:end])) {
			// tail's header before the lines of a file (tail -f mcp*.log),
			// or a line that no JSON Lines capture starts with, as a
			// partial log may (tail -n, an excerpt starting with the
			// server's standard error): the next line says what the
			// capture is.
			s.held = append(s.held, heldLine{lineNo, bytes.Clone(line[:end]), start})
			return
		}
		s.log, s.logSent = kind, sent
		if len(s.held) == 0 && end == start+1 && (line[start] == '{' || line[start] == '[') {
			s.loneBracket, s.firstByte = true, string(line[start])
		}
		s.replayHeld()
	}
	s.lineOf(pos, line[:end], start)
}

// heldLine is a line of a capture whose reading waits for the kind of the
// capture to be known.
type heldLine struct {
	n     int
	line  []byte // without trailing white space
	start int    // its first non-blank byte
}

// maxHeld and maxHeldLen bound the lines held before the line that says
// what a capture is (see line): further ones are read as that line.
const (
	maxHeld    = 64
	maxHeldLen = 4096
)

// mayLeadLog reports whether a line, not blank and no log's line (see
// logKind), may start a part of a log without being a JSON Lines message:
// it does not start with a direction marker or a JSON object or array of
// objects, or it is an object without a "jsonrpc" member, such as a
// server's JSON logger writes to standard error. A lone "{" or "[" (JSON
// printed over several lines) is no such line.
func mayLeadLog(b []byte) bool {
	switch b[0] {
	case '>', '<':
		return false
	case '{':
		return len(b) > 1 && !bytes.Contains(b, []byte(`"jsonrpc"`))
	case '[':
		rest := bytes.TrimLeft(b[1:], " \t")
		return len(rest) > 0 && rest[0] != '{' && rest[0] != ']'
	}
	return true
}

// isTailHeader reports whether a line is the header tail writes before the
// lines of each file when given several ("==> mcp.log <==").
func isTailHeader(b []byte) bool {
	return len(b) >= len("==>  <==") && bytes.HasPrefix(b, []byte("==> ")) && bytes.HasSuffix(b, []byte(" <=="))
}

// logHeader notes the file whose lines follow when a line of an MCP host's
// log without a timestamp is a tail header: each file's servers are
// sessions of their own, as each FILE given to check is (tail -f mcp*.log
// follows mcp.log, which holds the lines of all servers, beside the
// per-server logs).
func (s *session) logHeader(line []byte) {
	if len(line) <= maxHeldLen && isTailHeader(line) {
		s.logFile = string(line[len("==> ") : len(line)-len(" <==")])
	}
}

// replayHeld reads the lines held before the kind of the capture was
// decided: in an MCP host's log, tail's headers are lines without a
// message; in any other capture they are read as any line is.
func (s *session) replayHeld() {
	held := s.held
	s.held = nil
	for _, h := range held {
		if s.log == logHost || s.log == logVSCode {
			s.logHeader(h.line[h.start:])
			s.nonBlank++
			s.logOther++
			continue
		}
		s.lineOf(position{line: h.n}, h.line, h.start)
	}
}

// lineOf handles one non-blank line of a JSON Lines capture, without its
// trailing white space, once the kind of the capture is known; start is
// the offset of its first non-blank byte.
func (s *session) lineOf(pos position, line []byte, start int) {
	end := len(line)
	s.nonBlank++
	if s.log != logNone {
		s.logLine(pos, line[:end], start)
		return
	}
	dir := fromUnknown
	switch line[start] {
	case '>':
		dir = fromClient
	case '<':
		dir = fromServer
	}
	if dir != fromUnknown {
		s.marked = true
		start++
		for start < end && isJSONSpace(line[start]) {
			start++
		}
		if start == end {
			s.invalid(pos, "", "empty message after the direction marker")
			return
		}
	}
	if bytes.HasPrefix(line[start:end], []byte("\xEF\xBB\xBF")) {
		// As when files that each start with one are joined with cat: a
		// peer's JSON parser fails on it as on any other byte.
		f := s.where()
		f.Column = start + 1
		s.report(pos, levelError, kindInvalid, fmt.Sprintf("not JSON at column %d: a UTF-8 byte order mark (EF BB BF) starts the message", f.Column), f)
		s.lostText(pos, dir, line[start+3:end], validPrefix(line[start+3:end]), "is not JSON (a byte order mark starts it)")
		return
	}
	if dir == fromUnknown {
		s.unmarkedLines++
		if s.firstUnmarked == 0 {
			s.firstUnmarked = pos.line
		}
	}
	s.payload(pos, "", dir, line[start:end], start+1)
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// logStamp matches the start of a line of an MCP host's log: an RFC 3339
// timestamp, then two bracketed fields, the level and the server's name in
// either order, as Claude Desktop writes its mcp-server-NAME.log files and
// mcp.log, which interleaves the lines of all servers
// ("2025-07-30T21:16:29.756Z [info] [name] ...", "2025-10-03T07:51:43.656Z
// [name] [info] ..."). Submatches 3 and 4 are the fields (see logServer).
var logStamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d) \[([^\]]*)\] \[([^\]]*)\] `)

// logLevels are the level words of an MCP host's log lines, in lower case:
// Claude Desktop's info and error, the other levels of electron-log and
// winston (warn, verbose, debug, silly; not winston's http, a likely server
// name), warning and trace (see isLevel).
var logLevels = map[string]bool{"error": true, "warn": true, "warning": true, "info": true, "debug": true, "verbose": true, "silly": true, "trace": true}

// isLevel reports whether b is a level word (see logLevels), in lower or
// upper case as loggers write them ("info", "INFO"; "Info" is a name), and
// whether it is info.
func isLevel(b []byte) (level, info bool) {
	if logLevels[string(b)] {
		return true, string(b) == "info"
	}
	var buf [len("warning")]byte
	if len(b) > len(buf) {
		return false, false
	}
	for i, c := range b {
		if c < 'A' || c > 'Z' {
			return false, false
		}
		buf[i] = c + 'a' - 'A'
	}
	w := buf[:len(b)]
	return logLevels[string(w)], string(w) == "info"
}

// logPartKey returns the key of the part of server name in an MCP host's
// log (see session.use), after the tail header naming file (""
// before any). No HAR part key (see partKey) starts with a NUL byte, and
// the length of file keeps the keys of different files and names apart.
func logPartKey(file string, name []byte) string {
	if file == "" {
		return "\x00log " + string(name)
	}
	return "\x00log\x00" + strconv.Itoa(len(file)) + ":" + file + string(name)
}

// logServer returns which of the two bracketed fields a and b of a line of
// an MCP host's log names the server:
//
//  1. a, when the two are the same;
//  2. the one that is not a level word (see isLevel), when the other is;
//     the line then tells where names stand, for rule 5;
//  3. when both are level words or neither is (a server named "debug", a
//     level of another name), the one that names a server of an earlier
//     line (of the same file, after tail headers), when the other does
//     not;
//  4. when both are level words, the one that is not "info" when the other
//     is (the lines that matter, messages and the starts and ends of runs,
//     are written at level info);
//  5. the field in the place the name had on the latest line that rule 2
//     decided, and before any, the first (the order of Claude Desktop's
//     per-server logs).
//
// Every line of a log of one server so names it whatever its level, as long
// as it is named by a word that is no level word, or the first line naming
// it is written at level info. Each line is decided on its own, so that
// logs of both orders joined (cat mcp*.log) are read right.
func (s *session) logServer(a, b []byte) []byte {
	la, ia := isLevel(a)
	lb, ib := isLevel(b)
	switch {
	case bytes.Equal(a, b):
		return a
	case la && !lb:
		s.logNameFirst = 2
		return b
	case lb && !la:
		s.logNameFirst = 1
		return a
	}
	if sa, sb := s.logKnown(a), s.logKnown(b); sa != sb {
		if sa {
			return a
		}
		return b
	}
	if ia && lb {
		return b
	}
	if ib && la {
		return a
	}
	if s.logNameFirst == 2 {
		return b
	}
	return a
}

// logKnown reports whether name is a server of an earlier line of an MCP
// host's log, of the same file after tail headers (as long as its part is
// kept: see maxParts).
func (s *session) logKnown(name []byte) bool {
	if s.p != nil && string(name) == s.p.server && s.p.file == s.logFile {
		return true
	}
	_, ok := s.partIdx[logPartKey(s.logFile, name)]
	return ok
}

// logUse makes the part of server name the one in use for line lineNo of
// an MCP host's log.
func (s *session) logUse(name []byte, lineNo int) {
	if s.p != nil && string(name) == s.p.server && s.p.file == s.logFile {
		s.p.used = lineNo // the server of the line before: most lines
		return
	}
	if s.logFirst == "" && s.p == nil {
		s.logFirst = string(name)
	} else if !s.logMany && string(name) != s.logFirst {
		s.logMany = true
	}
	s.use(logPartKey(s.logFile, name), lineNo)
	if s.p.server == "" {
		s.p.server, s.p.file = string(name), s.logFile
	}
}

// Kinds of log that check reads messages from.
const (
	logNone   = iota
	logHost   // an MCP host's log (see logStamp)
	logVSCode // VS Code's output log of an MCP server (see vscodeStamp)
	logSDK    // go-sdk's mcp.LoggingTransport
)

// Where an MCP host's log gives a message it sent or received, and where
// go-sdk's mcp.LoggingTransport gives one that its side wrote or read.
var (
	logFromClient = []byte("Message from client: ")
	logFromServer = []byte("Message from server: ")
	logWrite      = []byte("write: ")
	logRead       = []byte("read: ")
)

// logKind decides from the first non-blank line of a capture whether it is
// a log, and of which kind. For a go-sdk log it returns who wrote the
// messages of its "write: " lines: the client when the first line writes
// an initialize request, the server when it reads one, and fromUnknown
// otherwise (messages are then taken as in unmarked JSON Lines).
func logKind(line []byte) (int, direction) {
	if logStamp.Match(line) {
		return logHost, fromUnknown
	}
	if vscodeStamp.Match(line) {
		return logVSCode, fromUnknown
	}
	rest, write := bytes.CutPrefix(line, logWrite)
	if !write {
		var read bool
		if rest, read = bytes.CutPrefix(line, logRead); !read {
			return logNone, fromUnknown
		}
	}
	rest = bytes.TrimLeft(rest, " \t")
	if len(rest) == 0 || rest[0] != '{' && rest[0] != '[' {
		return logNone, fromUnknown
	}
	var sc []scan.Message
	msgs, _, err := scanText(nil, &sc, rest)
	if err == nil && len(msgs) > 0 && msgs[0].id != nil && string(msgs[0].method) == `"initialize"` {
		if write {
			return logSDK, fromClient
		}
		return logSDK, fromServer
	}
	return logSDK, fromUnknown
}

// logLine handles one line of an MCP host's log: a line with "Message from
// client: " or "Message from server: " holds the message that follows
// (Claude Desktop writes a JavaScript "{ metadata: undefined }" after it,
// which is not part of it); other lines (the host's own, the server's
// standard error, which may be JSON from a server's logger) hold none and
// are counted. start is the offset of the line's first non-blank byte.
func (s *session) logLine(pos position, line []byte, start int) {
	switch s.log {
	case logSDK:
		s.sdkLine(pos, line, start)
		return
	case logVSCode:
		s.vscodeLine(pos, line, start)
		return
	}
	dir := fromClient
	// Only the host's own, timestamped lines say what passed: a server's
	// standard error (copied into the log without a timestamp) may say
	// anything.
	m := logStamp.FindSubmatchIndex(line[start:])
	if m == nil {
		s.logHeader(line[start:])
		s.logOther++
		return
	}
	// Each server's lines are a session of their own (see logServer).
	l := line[start:]
	s.logUse(s.logServer(l[m[6]:m[7]], l[m[8]:m[9]]), pos.line)
	if s.run.at == 0 && s.run.from == 0 {
		s.run.from = pos.line
	}
	from := start + m[1]
	i := bytes.Index(line[from:], logFromClient)
	n := len(logFromClient)
	if j := bytes.Index(line[from:], logFromServer); j >= 0 && (i < 0 || j < i) {
		dir, i, n = fromServer, j, len(logFromServer)
	}
	if i < 0 {
		// The host's lines where a run of the server starts and ends (a
		// message is neither, whatever its text says).
		switch text := line[from:]; {
		case bytes.HasPrefix(text, []byte("Initializing server")):
			s.logRun(pos, false)
		case bytes.Contains(text, []byte("transport closed")) || bytes.HasPrefix(text, []byte("Shutting down server")) ||
			bytes.HasPrefix(text, []byte("Server disconnected")):
			s.run.ended = true
		}
		s.logOther++
		return
	}
	s.logMarked++
	s.marked = true
	s.run.held = true
	i += from - start
	begin := start + i + n
	for begin < len(line) && isJSONSpace(line[begin]) {
		begin++
	}
	if begin == len(line) {
		s.invalid(pos, "", "empty message after \""+string(bytes.TrimSpace(line[start+i:start+i+n]))+"\"")
		return
	}
	end := begin + jsonExtent(line[begin:])
	s.payload(pos, "", dir, line[begin:end], begin+1)
}

// vscodeStamp matches the start of a line of VS Code's output log of an
// MCP server (the "MCP: NAME" channel of the Output view, and its file in
// VS Code's logs folder): a local time to the millisecond and the level in
// brackets, as VS Code's loggers write them ("2026-07-24 02:03:14.089
// [debug] ...").
var vscodeStamp = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \[(trace|debug|info|warning|error)\] `)

// vscodeMarkers are the words after the level on the lines of VS Code's
// output log of an MCP server that hold a message, with its sender:
// "[editor -> server] " and "[server -> editor] ", each followed by the
// message as JavaScript's JSON.stringify writes what VS Code sent or read
// (microsoft/vscode, mcpServerRequestHandler.ts; rsclarke/mcp-taskfile-server#134),
// and, in VS Code's early MCP support (March 2025), "[Client Says] " and
// "[Server Says] ", followed by the text sent and the line the server
// wrote (microsoft/vscode#244377).
var vscodeMarkers = []struct {
	text []byte
	dir  direction
}{
	{[]byte("[editor -> server] "), fromClient},
	{[]byte("[server -> editor] "), fromServer},
	{[]byte("[Client Says] "), fromClient},
	{[]byte("[Server Says] "), fromServer},
}

// vscodeLine handles one line of VS Code's output log of an MCP server: a
// timestamped line whose text starts with a direction marker (see
// vscodeMarkers) holds the message after it, to the end of the line; other
// lines (VS Code's own, the server's standard error as "[server stderr]",
// a stack trace's lines without a timestamp) hold none and are counted.
// The log is of one server: each file (after tail headers, each file
// named) is a session. A run starts at "Starting server" or "Connection
// state: Starting" and ends at "Stopping server" or "Connection state:
// Stopped" or "Error" (mcpServerConnection.ts); VS Code runs one
// connection to a server at a time (see logRun).
func (s *session) vscodeLine(pos position, line []byte, start int) {
	m := vscodeStamp.FindIndex(line[start:])
	if m == nil {
		s.logHeader(line[start:])
		s.logOther++
		return
	}
	if s.p == nil || s.p.file != s.logFile {
		s.use(logPartKey(s.logFile, nil), pos.line)
		s.p.file = s.logFile
	}
	if s.run.at == 0 && s.run.from == 0 {
		s.run.from = pos.line
	}
	from := start + m[1]
	text := line[from:]
	dir, n := fromUnknown, 0
	for _, k := range vscodeMarkers {
		// The line ends after the marker when the message is empty (its
		// trailing white space is gone).
		if w := k.text[:len(k.text)-1]; bytes.HasPrefix(text, w) && (len(text) == len(w) || text[len(w)] == ' ') {
			dir, n = k.dir, len(w)
			break
		}
	}
	if dir == fromUnknown {
		switch {
		case bytes.HasPrefix(text, []byte("Starting server")) || bytes.HasPrefix(text, []byte("Connection state: Starting")):
			s.logRun(pos, true)
		case bytes.HasPrefix(text, []byte("Stopping server")) || bytes.HasPrefix(text, []byte("Connection state: Stopped")) ||
			bytes.HasPrefix(text, []byte("Connection state: Error")):
			s.run.ended = true
		}
		s.logOther++
		return
	}
	s.logMarked++
	s.marked = true
	s.run.held = true
	begin := from + n
	for begin < len(line) && isJSONSpace(line[begin]) {
		begin++
	}
	if begin == len(line) {
		s.invalid(pos, "", "empty message after \""+string(text[:n])+"\"")
		return
	}
	s.payload(pos, "", dir, line[begin:], begin+1)
}

// sdkLine handles one line of go-sdk's mcp.LoggingTransport log: "write: "
// and "read: " and the message its side wrote or read; other lines ("read
// error: EOF", anything else written to the same log) hold no message and
// are counted.
func (s *session) sdkLine(pos position, line []byte, start int) {
	dir := s.logSent
	rest, ok := bytes.CutPrefix(line[start:], logWrite)
	write := ok
	if !ok {
		if rest, ok = bytes.CutPrefix(line[start:], logRead); !ok {
			s.logOther++
			return
		}
		switch dir {
		case fromClient:
			dir = fromServer
		case fromServer:
			dir = fromClient
		}
	}
	if dir != fromUnknown {
		s.marked = true
	}
	begin := len(line) - len(rest)
	for begin < len(line) && isJSONSpace(line[begin]) {
		begin++
	}
	if begin == len(line) {
		s.invalid(pos, "", "empty message after \""+strings.TrimSpace(string(line[start:begin]))+"\"")
		return
	}
	if !write && s.sdkGaveUp(pos, dir, line[begin:]) {
		return
	}
	s.payload(pos, "", dir, line[begin:], begin+1)
}

// jsonExtent returns the length of the JSON object or array at the start
// of b, found by its brackets outside strings, or len(b) when b does not
// start with one or it does not end: the scan then says what is wrong.
func jsonExtent(b []byte) int {
	if len(b) == 0 || b[0] != '{' && b[0] != '[' {
		return len(b)
	}
	if end, ok := bracketEnd(b); ok {
		return end
	}
	return len(b)
}

// bracketEnd returns the offset after the bracket that closes the object or
// array at b[0], found by the brackets outside strings, and false if none
// does.
func bracketEnd(b []byte) (int, bool) {
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return i + 1, true
			}
		}
	}
	return 0, false
}

// startsLikeJSONText reports whether data, after JSON whitespace, starts
// with the bracket of an object or array, as every JSON-RPC message does.
func startsLikeJSONText(data []byte) bool {
	for _, c := range data {
		if !isJSONSpace(c) {
			return c == '{' || c == '['
		}
	}
	return false
}

// payload handles one JSON text that should be a message or a batch. loc
// prefixes messages about its validity; column is the 1-based column of its
// first byte on a JSON Lines line, or 0 for a HAR body.
func (s *session) payload(pos position, loc string, dir direction, data []byte, column int) {
	msgs, batch, err := scanText(s.msgs[:0], &s.scanned, data)
	s.msgs = msgs[:0]
	if err != nil && s.har && !s.strict && !startsLikeJSONText(data) {
		// Text that is not JSON at all, in a body or event nothing asks
		// to be JSON-RPC (a page's event stream of heartbeats, such as
		// webpack-hot-middleware's "data: 💓"): passed over, as JSON
		// without JSON-RPC is. What starts like an object or array is
		// reported: it may be a broken message.
		s.passed = true
		return
	}
	if err != nil {
		where := ""
		f := s.where()
		if err.Offset >= 0 { // the 0-based offset of the first byte not accepted
			if column > 0 {
				f.Column = int(err.Offset) + column
				where = fmt.Sprintf(" at column %d", f.Column)
			} else {
				off := err.Offset + s.offsetBase
				f.Offset = &off
				where = fmt.Sprintf(" at byte offset %d", off)
			}
		}
		reason := err.Reason
		if strings.HasPrefix(reason, "invalid character") && err.Offset >= 0 && err.Offset < int64(len(data)) {
			reason += " " + nameByte(data[err.Offset:])
		}
		s.report(pos, levelError, kindInvalid, loc+fmt.Sprintf("not JSON%s: %s", where, reason), f)
		what, valid := "is not JSON", len(data)
		if err.Offset >= 0 {
			valid = int(err.Offset)
		}
		if err.Reason == "unexpected end of input" {
			what = "is cut short"
			if !s.har && s.atEOF {
				what = "is cut short at the end of the input"
			}
		}
		s.lostText(pos, dir, data, valid, what)
		return
	}
	if s.har && !s.strict && notRPC(msgs, batch, s.httpError) {
		s.passed = true
		return
	}
	s.examined = true
	if !batch {
		m := &msgs[0]
		if !m.object {
			s.invalid(pos, loc, "not JSON-RPC 2.0: "+base.JSONTypeName(m.value)+", not a message object or batch")
			return
		}
		s.message(pos, loc, dir, m)
		return
	}
	if len(msgs) == 0 {
		s.invalid(pos, loc, "not JSON-RPC 2.0: an empty batch")
		return
	}
	s.batchAnswers(msgs)
	defer clear(s.batchAnswered)
	for i := range msgs {
		m := &msgs[i]
		eloc := fmt.Sprintf("%sbatch element %d: ", loc, i+1)
		s.element = i + 1
		if !m.object {
			s.invalid(pos, eloc, "not JSON-RPC 2.0: "+base.JSONTypeName(m.value)+", not a message object")
			continue
		}
		s.message(pos, eloc, dir, m)
	}
	s.element = 0
}

// notRPC reports whether a HAR body, event or frame that is JSON holds no
// JSON-RPC message, so that it is passed over, not reported, outside the
// answer to a JSON-RPC request: one without a "jsonrpc" member (in any
// spelling) that is an HTTP error document (httpError: the body of a
// response with a status other than 2xx, such as OAuth's
// {"error":"invalid_token"} with 401) or has neither a "method" member nor
// an "id" with a "result" or "error" (a REST resource such as
// {"id":3,"name":"c"}, an OAuth metadata document, a page's own event
// stream).
func notRPC(msgs []fields, batch bool, httpError bool) bool {
	if batch && len(msgs) == 0 {
		return false
	}
	for i := range msgs {
		m := &msgs[i]
		if !m.object {
			continue
		}
		if m.version != nil || (m.dup|m.fold)&scan.JSONRPC != 0 {
			return false
		}
		if !httpError && (m.method != nil || m.id != nil && (m.result != nil || m.errv != nil) || (m.dup|m.fold) != 0) {
			return false
		}
	}
	return true
}

// nameByte names the character at the start of b for a finding: 'x' for
// printable ASCII, U+XXXX for a control or other character, and 0xXX for
// a byte that is not UTF-8.
func nameByte(b []byte) string {
	r, size := utf8.DecodeRune(b)
	switch {
	case r == utf8.RuneError && size <= 1:
		return fmt.Sprintf("(byte 0x%02X)", b[0])
	case r >= 0x20 && r < 0x7f:
		return fmt.Sprintf("(%q)", r)
	}
	return fmt.Sprintf("(U+%04X)", r)
}

// emit prints a finding and counts it. Output is buffered; see flushReader.
func (c *checker) emit(f *finding) {
	if f.Level == levelError {
		c.errors++
	} else {
		c.warnings++
	}
	c.tally.add(f)
	if c.sarif != nil {
		c.sarif.add(f, c.encode)
		return
	}
	if c.json {
		c.w.Write(c.encode(f))
		return
	}
	c.w.WriteString(base.Printable(f.File))
	c.w.WriteByte(':')
	switch {
	case f.Entry > 0:
		c.w.WriteString("entry ")
		c.w.WriteString(strconv.Itoa(f.Entry))
		c.w.WriteByte(':')
	case f.Line > 0:
		c.w.WriteString(strconv.Itoa(f.Line))
		c.w.WriteByte(':')
	}
	c.w.WriteByte(' ')
	c.w.WriteString(f.Level)
	c.w.WriteString(": ")
	if c.explained == nil {
		c.explained = explained{}
	}
	c.w.WriteString(base.Printable(c.explained.text(f)))
	c.w.WriteByte('\n')
}

// encode returns v as JSON on one line, ending in a newline, made safe
// for a terminal (see safeJSON). The result is valid until the next call.
func (c *checker) encode(v any) []byte {
	c.buf.Reset()
	c.enc.Encode(v)
	return safeJSON(c.buf.Bytes())
}

// safeJSON escapes in encoded JSON what encoding/json leaves raw and a
// terminal must not see: DEL, C1 controls and bidirectional controls
// (outside strings encoded JSON is ASCII, so every such rune is inside a
// string, where \u escapes mean the same). Invalid UTF-8 becomes U+FFFD.
func safeJSON(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < 0x7f {
		i++
	}
	if i == len(b) {
		return b
	}
	out := append([]byte(nil), b[:i]...)
	for i < len(b) {
		if b[i] < 0x7f {
			out = append(out, b[i])
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		if base.UnsafeRune(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = utf8.AppendRune(out, r)
		}
	}
	return out
}

// summary returns the summary line.
func (c *checker) summary() string {
	n := c.counts
	msgs := n.requests + n.responses + n.notifications
	var b strings.Builder
	fmt.Fprintf(&b, "checked %s: %s (%s, %s, %s)", plural(c.files, "file"), plural(msgs, "message"),
		plural(n.requests, "request"), plural(n.responses, "response"), plural(n.notifications, "notification"))
	if len(c.otherEvents) > 0 {
		var parts []string
		total := 0
		for _, k := range sortedKeys(c.otherEvents) {
			parts = append(parts, fmt.Sprintf("%s %d", base.Printable(k), c.otherEvents[k]))
			total += c.otherEvents[k]
		}
		fmt.Fprintf(&b, "; %s of other types than message not examined (%s)", plural(total, "SSE event"), strings.Join(parts, ", "))
	}
	if c.logOther > 0 {
		fmt.Fprintf(&b, "; %s without a message not examined", plural(c.logOther, "log line"))
	}
	if n.redelivered > 0 {
		fmt.Fprintf(&b, "; %s redelivered (the id and data of an event of the same session) not counted again", plural(n.redelivered, "SSE event"))
	}
	b.WriteString("; ")
	if c.errors+c.warnings == 0 {
		b.WriteString("no findings")
	} else {
		fmt.Fprintf(&b, "%s, %s", plural(c.errors, "error"), plural(c.warnings, "warning"))
	}
	return b.String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return strconv.Itoa(n) + " " + noun[:len(noun)-1] + "ies"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
