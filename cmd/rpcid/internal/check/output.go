package check

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

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

// emit prints a finding and counts it. Output is buffered; see flushReader.
func (c *checker) emit(f *finding) {
	if f.Level == levelError {
		c.errors++
	} else {
		c.warnings++
	}
	c.verdict.add(f)
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
		var sessions []string
		total := 0
		for _, k := range sortedKeys(c.otherEvents) {
			sessions = append(sessions, fmt.Sprintf("%s %d", base.Printable(k), c.otherEvents[k]))
			total += c.otherEvents[k]
		}
		fmt.Fprintf(&b, "; %s of other types than message not examined (%s)", plural(total, "SSE event"), strings.Join(sessions, ", "))
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
