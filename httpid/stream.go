package httpid

import (
	"bytes"
	"io"
	"slices"

	"github.com/rpcid/rpcid/internal/mediatype"
	"github.com/rpcid/rpcid/internal/restore"
)

// streamBody is the body of a JSON response (application/json or another
// JSON type, see mediatype.IsJSON) of unknown length, which may be one JSON
// text or a long-lived stream of them. It passes bytes on as they arrive,
// holding back only a top-level object or array from its first byte until
// its closing bracket, and then passes that on with its response ids
// restored. Bytes outside objects and arrays (whitespace between texts,
// scalars, strings and the brackets in them, a byte order mark before a
// text, anything that is not JSON) pass at once. An object or array longer
// than max passes through unchanged as it arrives.
//
// Brackets are matched by counting, outside strings; whether the held text
// is valid JSON is for the restoring to decide, which leaves invalid text
// unchanged.
type streamBody struct {
	restore.Filter // reads rc through Feed; End at its end
	t              *Transport
	rc             io.ReadCloser
	ex             *restore.Exchange
	sc             restore.Scope // ex's, and its request's session
	failed         bool
	max            int

	held     []byte // the current object or array from its first byte
	in       bool   // within a top-level object or array
	topStr   bool   // within a top-level string (its brackets start nothing)
	skipping bool   // the current one outgrew max or the budget: pass it on as it arrives
	hold     hold   // held, charged to the budget
	depth    int    // brackets open
	str, esc bool   // within a string; after its reverse solidus
}

func newStreamBody(t *Transport, rc io.ReadCloser, ex *restore.Exchange, session string, failed bool) *streamBody {
	b := &streamBody{t: t, rc: rc, ex: ex, sc: t.ids().Scope(ex, session), failed: failed, max: t.maxMessageSize()}
	b.hold.budget = t.ids().Budget
	b.Src, b.F = rc, b
	return b
}

// End passes on an unfinished object or array as it is, and ends the
// exchange.
func (b *streamBody) End() {
	b.Out = append(b.Out, b.held...)
	b.held = nil
	b.t.ids().Release(b.ex, b.failed)
	b.hold.end()
}

// Close closes the underlying body and ends the exchange. It may be called
// concurrently with Read, as for any response body.
func (b *streamBody) Close() error {
	err := b.rc.Close()
	b.t.ids().Release(b.ex, b.failed)
	b.hold.end()
	return err
}

// Feed processes bytes read from the body.
func (b *streamBody) Feed(p []byte) {
	for len(p) > 0 {
		if b.topStr {
			// A string between texts passes at once, to its end.
			n, done := b.stringEnd(p)
			b.Out = append(b.Out, p[:n]...)
			p = p[n:]
			b.topStr = !done
			continue
		}
		if !b.in {
			i := bytes.IndexAny(p, "{[\"")
			if i < 0 {
				b.Out = append(b.Out, p...)
				return
			}
			b.Out = append(b.Out, p[:i+1]...)
			if p[i] == '"' {
				b.topStr, b.esc = true, false
				p = p[i+1:]
				continue
			}
			b.Out = b.Out[:len(b.Out)-1] // the bracket starts the held text
			p = p[i:]
			b.in, b.depth, b.str, b.esc = true, 0, false, false
		}
		i, done := b.scan(p)
		seg := p[:i]
		p = p[i:]
		if done && len(b.held) == 0 && !b.skipping && len(seg) <= b.max {
			// The whole object or array is in this chunk: restore it
			// straight from the chunk, without holding a copy.
			b.Out = slices.Grow(b.Out, len(seg)+8) // room for an id restored longer
			b.Out, _ = b.sc.AppendRestored(b.Out, seg)
			b.in = false
			continue
		}
		if b.skipping {
			b.Out = append(b.Out, seg...)
		} else if b.held = append(b.held, seg...); len(b.held) > b.max || !b.hold.set(cap(b.held)) {
			b.Out = append(b.Out, b.held...)
			b.held = nil // the rest passes as it arrives: room for the next
			b.hold.set(0)
			b.skipping = true
		}
		if done {
			if !b.skipping {
				b.Out, _ = b.sc.AppendRestored(b.Out, b.held)
			}
			b.held = b.held[:0]
			if cap(b.held) > heldLimit {
				b.held = nil
			}
			b.hold.set(cap(b.held)) // never more than before: fits
			b.in, b.skipping = false, false
		}
	}
}

// scan follows the brackets of p, a part of a top-level object or array,
// and returns the length of p up to and including the bracket that closes
// it (done), or len(p).
func (b *streamBody) scan(p []byte) (n int, done bool) {
	for i := 0; i < len(p); i++ {
		if b.str {
			n, done := b.stringEnd(p[i:])
			if !done {
				return len(p), false
			}
			b.str = false
			i += n - 1 // the quotation mark
			continue
		}
		switch p[i] {
		case '"':
			b.str = true
		case '{', '[':
			b.depth++
		case '}', ']':
			if b.depth--; b.depth == 0 {
				return i + 1, true
			}
		}
	}
	return len(p), false
}

// stringEnd returns the length of p up to and including the quotation mark
// that ends the string p is in, and whether that mark is in p; b.esc says
// whether p's first byte is escaped, and is set for the next chunk's. The
// string ends at the first quotation mark that is not escaped: one after an
// even run of reverse solidi, counted from where no escape is pending.
func (b *streamBody) stringEnd(p []byte) (int, bool) {
	i := 0
	if b.esc && len(p) > 0 {
		b.esc = false // the escaped byte
		i = 1
	}
	for i < len(p) {
		j := bytes.IndexByte(p[i:], '"')
		if j < 0 {
			b.esc = backslashes(p[i:])%2 == 1 // the next chunk's first byte is escaped
			return len(p), false
		}
		if backslashes(p[i:i+j])%2 == 0 {
			return i + j + 1, true
		}
		i += j + 1
	}
	return len(p), false
}

// backslashes returns the number of reverse solidi that end p.
func backslashes(p []byte) int {
	n := 0
	for n < len(p) && p[len(p)-1-n] == '\\' {
		n++
	}
	return n
}

// lineBody is the body of a newline-delimited JSON response: each line is
// restored as one JSON text as soon as its LF arrives (restore.LineReader).
type lineBody struct {
	restore.LineReader // reads rc through Line
	t                  *Transport
	rc                 io.ReadCloser
	ex                 *restore.Exchange
	sc                 restore.Scope // ex's, and its request's session
	failed             bool
	seq                bool // the lines are RFC 7464 records, each starting with the record separator U+001E
}

// newLineBody returns the body for rc's lines. seq says they are RFC 7464
// records.
func (t *Transport) newLineBody(rc io.ReadCloser, ex *restore.Exchange, session string, failed, seq bool) *lineBody {
	b := &lineBody{t: t, rc: rc, ex: ex, sc: t.ids().Scope(ex, session), failed: failed, seq: seq}
	b.Init(rc, t.maxMessageSize(), b)
	return b
}

// Line appends line to dst with its ids restored (restore.Liner).
func (b *lineBody) Line(dst, line []byte) []byte {
	ids := b.t.ids()
	if ids.Idle() {
		return append(dst, line...) // nothing to restore
	}
	// A byte order mark at the start of the line is no part of its text
	// (RFC 8259 section 8.1): it passes on, and the text after it is
	// restored. Every line may have one, as readers that give each line's
	// bytes to a parser that skips it (Python's json.loads) read it; in a
	// JSON text sequence, one may come before the record separator (at the
	// start of the body, where UTF-8 decoding removes it) and one after it,
	// at the start of the text.
	if rest, ok := mediatype.TrimBOM(line); ok {
		dst = append(dst, mediatype.BOM...)
		line = rest
	}
	if b.seq && len(line) > 0 && line[0] == 0x1e {
		dst = append(dst, line[0])
		line = line[1:]
		if rest, ok := mediatype.TrimBOM(line); ok {
			dst = append(dst, mediatype.BOM...)
			line = rest
		}
	}
	out, _ := b.sc.AppendRestored(dst, line)
	return out
}

func (b *lineBody) Read(p []byte) (int, error) {
	n, err := b.LineReader.Read(p)
	if err != nil {
		b.t.ids().Release(b.ex, b.failed)
	}
	return n, err
}

// Close closes the underlying body and ends the exchange.
func (b *lineBody) Close() error {
	err := b.rc.Close()
	b.t.ids().Release(b.ex, b.failed)
	return err
}
