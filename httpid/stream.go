package httpid

import (
	"bytes"
	"io"

	"github.com/rpcid/rpcid/internal/restore"
)

// streamBody is the body of an application/json response of unknown length,
// which may be one JSON text or a long-lived stream of them. It passes bytes
// on as they arrive, holding back only a top-level object or array from its
// first byte until its closing bracket, and then passes that on with its
// response ids restored. Bytes outside objects and arrays (whitespace
// between texts, scalars, anything that is not JSON) pass at once. An object
// or array longer than max passes through unchanged as it arrives.
//
// Brackets are matched by counting, outside strings; whether the held text
// is valid JSON is for the restoring to decide, which leaves invalid text
// unchanged.
type streamBody struct {
	restore.Filter // reads rc through feed; end at its end
	t              *Transport
	rc             io.ReadCloser
	ex             *restore.Exchange
	failed         bool
	max            int

	held     []byte // the current object or array from its first byte
	in       bool   // within a top-level object or array
	skipping bool   // the current one outgrew max: pass it on as it arrives
	depth    int    // brackets open
	str, esc bool   // within a string; after its reverse solidus
}

func newStreamBody(t *Transport, rc io.ReadCloser, ex *restore.Exchange, failed bool) *streamBody {
	b := &streamBody{t: t, rc: rc, ex: ex, failed: failed, max: t.maxMessageSize()}
	b.Src, b.Feed, b.End = rc, b.feed, b.end
	return b
}

// end passes on an unfinished object or array as it is, and ends the
// exchange.
func (b *streamBody) end() {
	b.Out = append(b.Out, b.held...)
	b.held = nil
	b.t.ids().Release(b.ex, b.failed)
}

// Close closes the underlying body and ends the exchange. It may be called
// concurrently with Read, as for any response body.
func (b *streamBody) Close() error {
	err := b.rc.Close()
	b.t.ids().Release(b.ex, b.failed)
	return err
}

// feed processes bytes read from the body.
func (b *streamBody) feed(p []byte) {
	for len(p) > 0 {
		if !b.in {
			i := bytes.IndexAny(p, "{[")
			if i < 0 {
				b.Out = append(b.Out, p...)
				return
			}
			b.Out = append(b.Out, p[:i]...)
			p = p[i:]
			b.in, b.depth, b.str, b.esc = true, 0, false, false
		}
		i, done := b.scan(p)
		seg := p[:i]
		p = p[i:]
		if b.skipping {
			b.Out = append(b.Out, seg...)
		} else if b.held = append(b.held, seg...); len(b.held) > b.max {
			b.Out = append(b.Out, b.held...)
			b.held = b.held[:0]
			b.skipping = true
		}
		if done {
			if !b.skipping {
				out, _ := b.t.ids().RestoreInPlace(b.held)
				b.Out = append(b.Out, out...)
			}
			b.held = b.held[:0]
			if cap(b.held) > heldLimit {
				b.held = nil
			}
			b.in, b.skipping = false, false
		}
	}
}

// scan follows the brackets of p, a part of a top-level object or array,
// and returns the length of p up to and including the bracket that closes
// it (done), or len(p).
func (b *streamBody) scan(p []byte) (n int, done bool) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if b.str {
			switch {
			case b.esc:
				b.esc = false
			case c == '\\':
				b.esc = true
			case c == '"':
				b.str = false
			default:
				// Skip to the next byte that matters in a string.
				if j := bytes.IndexAny(p[i:], "\"\\"); j < 0 {
					return len(p), false
				} else {
					i += j - 1
				}
			}
			continue
		}
		switch c {
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

// lineBody is the body of a newline-delimited JSON response: each line is
// restored as one JSON text as soon as its LF arrives (restore.NewLineReader).
type lineBody struct {
	t      *Transport
	r      io.Reader
	rc     io.ReadCloser
	ex     *restore.Exchange
	failed bool
}

// newLineBody returns the body for rc's lines. seq says they are RFC 7464
// records, each starting with the record separator U+001E.
func (t *Transport) newLineBody(rc io.ReadCloser, ex *restore.Exchange, failed, seq bool) *lineBody {
	ids := t.ids()
	fn := func(dst, line []byte) []byte {
		if ids.Idle() {
			return append(dst, line...) // nothing to restore
		}
		if seq && len(line) > 0 && line[0] == 0x1e {
			dst = append(dst, line[0])
			line = line[1:]
		}
		out, _ := ids.AppendRestored(dst, line)
		return out
	}
	return &lineBody{t: t, r: restore.NewLineReader(rc, t.maxMessageSize(), fn), rc: rc, ex: ex, failed: failed}
}

func (b *lineBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
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
