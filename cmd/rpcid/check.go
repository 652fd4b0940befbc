package main

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"
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
	Request *requestRef     `json:"request,omitempty"`
	Lax     []laxMatch      `json:"lax,omitempty"`
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
)

// checker runs "rpcid check" over one or more captures.
type checker struct {
	w        *bufio.Writer
	json     bool
	enc      *json.Encoder
	files    int
	errors   int
	warnings int
	counts   counts
}

// counts are the messages seen, for the summary.
type counts struct {
	requests, responses, notifications int
}

func runCheck(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlags("check", "[-json] [FILE ...]", stderr)
	jsonOut := fs.Bool("json", false, "print findings as JSON objects, one per line (summary to standard error)")
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	c := &checker{w: bufio.NewWriter(stdout), json: *jsonOut}
	c.enc = json.NewEncoder(c.w)
	c.enc.SetEscapeHTML(false)

	status := 0
	files := fs.Args()
	if len(files) == 0 {
		fmt.Fprintf(stderr, "rpcid check: no FILE given, checking the embedded sample %s (an MCP session through a gateway that turns numeric ids into strings)\n", sampleName)
		if err := c.check(sampleName, bytes.NewReader(sampleCapture)); err != nil {
			fmt.Fprintf(stderr, "rpcid check: %s: %v\n", sampleName, err)
			status = 2
		}
	}
	unreadable := 0
	for _, name := range files {
		var err error
		if name == "-" {
			if err = c.check("<stdin>", stdin); err != nil {
				err = fmt.Errorf("reading standard input: %w", err)
			}
		} else {
			err = c.checkFile(name)
		}
		if err != nil {
			c.w.Flush()
			fmt.Fprintf(stderr, "rpcid check: %v\n", err)
			status = 2
			unreadable++
		}
	}
	summary := c.summary()
	if unreadable > 0 {
		summary += "; " + plural(unreadable, "file") + " could not be read"
	}
	if c.json {
		c.w.Flush()
		fmt.Fprintln(stderr, summary)
	} else {
		fmt.Fprintln(c.w, summary)
	}
	if err := c.w.Flush(); err != nil {
		fmt.Fprintf(stderr, "rpcid check: writing output: %v\n", err)
		return 2
	}
	if status != 0 {
		return status
	}
	if c.errors+c.warnings > 0 {
		return 1
	}
	return 0
}

// checkFile checks the named file. Errors name the file.
func (c *checker) checkFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := c.check(name, f); err != nil {
		return fmt.Errorf("reading %s: %w", name, err)
	}
	return nil
}

// check checks one capture read from r, reported under name. It returns
// only read errors; problems in the content are findings.
func (c *checker) check(name string, r io.Reader) error {
	c.files++
	s := newSession(c, name)
	br := bufio.NewReaderSize(r, 64<<10)
	if b, _ := br.Peek(3); bytes.Equal(b, []byte("\xEF\xBB\xBF")) {
		br.Discard(3)
	}
	var err error
	if isHAR(br) {
		err = s.readHAR(br)
	} else {
		err = s.readJSONLines(br)
	}
	s.finish()
	return err
}

// isHAR reports whether the capture starts with a JSON object whose first
// member is "log", as HAR files do. JSON-RPC messages have no such member.
// It reads no more than it needs to decide, so that a capture piped in as it
// is recorded is checked as it comes.
func isHAR(br *bufio.Reader) bool {
	for n := 1; n <= br.Size(); n = br.Buffered() + 1 {
		_, err := br.Peek(n)
		more := err == nil // else end of input or a full buffer: decide on what there is
		b, _ := br.Peek(br.Buffered())
		dec := json.NewDecoder(bytes.NewReader(b))
		t, err := dec.Token()
		if err == nil {
			if t != json.Delim('{') {
				return false
			}
			t, err = dec.Token()
			if err == nil {
				return t == "log"
			}
		}
		if !more || !(errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) {
			return false // not JSON at the start, or no more input
		}
	}
	return false
}

// readJSONLines reads a JSON Lines capture, one line at a time, with no
// limit on line length.
func (s *session) readJSONLines(br *bufio.Reader) error {
	var long []byte
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: collect it in long, which is
			// reused for the next long line.
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			s.line(lineNo, line)
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
	dir := fromUnknown
	switch line[start] {
	case '>':
		dir = fromClient
	case '<':
		dir = fromServer
	}
	if dir != fromUnknown {
		start++
		for start < end && isJSONSpace(line[start]) {
			start++
		}
		if start == end {
			s.invalid(pos, "", "empty message after the direction marker")
			return
		}
	}
	s.payload(pos, "", dir, line[start:end], start+1)
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// payload handles one JSON text that should be a message or a batch. loc
// prefixes messages about its validity; column is the 1-based column of its
// first byte on a JSON Lines line, or 0 for a HAR body.
func (s *session) payload(pos position, loc string, dir direction, data []byte, column int) {
	if !json.Valid(data) {
		var v json.RawMessage
		err := json.Unmarshal(data, &v)
		var se *json.SyntaxError
		where := ""
		if errors.As(err, &se) {
			if column > 0 {
				where = fmt.Sprintf(" at column %d", int(se.Offset)+column-1)
			} else {
				where = fmt.Sprintf(" at byte %d", se.Offset)
			}
			err = errors.New(se.Error())
		}
		s.invalid(pos, loc, fmt.Sprintf("not JSON%s: %v", where, err))
		return
	}
	data = bytes.TrimLeft(data, " \t\r\n")
	switch data[0] {
	case '{':
		s.message(pos, loc, dir, data)
	case '[':
		var batch []json.RawMessage
		if err := json.Unmarshal(data, &batch); err != nil {
			s.invalid(pos, loc, fmt.Sprintf("not JSON: %v", err))
			return
		}
		if len(batch) == 0 {
			s.invalid(pos, loc, "not JSON-RPC 2.0: an empty batch")
			return
		}
		for i, m := range batch {
			eloc := fmt.Sprintf("%sbatch element %d: ", loc, i+1)
			if len(m) == 0 || m[0] != '{' {
				s.invalid(pos, eloc, "not JSON-RPC 2.0: "+jsonTypeName(m)+", not a message object")
				continue
			}
			s.message(pos, eloc, dir, m)
		}
	default:
		s.invalid(pos, loc, "not JSON-RPC 2.0: "+jsonTypeName(data)+", not a message object or batch")
	}
}

// jsonTypeName names the type of a valid JSON value, with an article.
func jsonTypeName(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// emit prints a finding and counts it.
func (c *checker) emit(f *finding) {
	if f.Level == levelError {
		c.errors++
	} else {
		c.warnings++
	}
	if c.json {
		c.enc.Encode(f)
		c.w.Flush()
		return
	}
	c.w.WriteString(f.File)
	c.w.WriteByte(':')
	if f.Entry > 0 {
		c.w.WriteString("entry ")
		c.w.WriteString(strconv.Itoa(f.Entry))
	} else {
		c.w.WriteString(strconv.Itoa(f.Line))
	}
	c.w.WriteString(": ")
	c.w.WriteString(f.Level)
	c.w.WriteString(": ")
	c.w.WriteString(printable(f.Message))
	c.w.WriteByte('\n')
	// Flush each finding, so that a capture piped in as it is recorded
	// shows its findings as they happen.
	c.w.Flush()
}

// printable returns s with its control characters (C0, DEL and C1, which
// includes line breaks and terminal escapes) written as Go escapes such as
// \n and \x1b, so that text from a capture (a method name, an error message)
// can neither split a finding over two lines nor drive the terminal.
func printable(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// summary returns the summary line.
func (c *checker) summary() string {
	n := c.counts
	msgs := n.requests + n.responses + n.notifications
	var b strings.Builder
	fmt.Fprintf(&b, "checked %s: %s (%s, %s, %s); ", plural(c.files, "file"), plural(msgs, "message"),
		plural(n.requests, "request"), plural(n.responses, "response"), plural(n.notifications, "notification"))
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
	return strconv.Itoa(n) + " " + noun + "s"
}
