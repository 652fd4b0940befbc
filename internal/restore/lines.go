package restore

import (
	"bytes"
	"io"
)

// NewLineReader returns a reader of src's bytes in which each complete line
// of at most max bytes, its terminating LF included, is replaced by what fn
// appends to dst for it. A last line that ends without LF at the end of src
// is given to fn too. A longer line passes through unchanged, streamed as it
// arrives: at most max bytes of it are ever held, and the buffer that held
// them is let go while the rest streams past. Read returns as soon as
// any bytes are ready, without waiting to fill its buffer, so a line reaches
// the reader as soon as its LF arrives.
//
// This is the framing of MCP's stdio transport (one JSON-RPC message or
// batch per line, RFC 8259 JSON text allows no raw LF inside a message) and
// of newline-delimited JSON bodies. fn is given the line with its LF (and a
// CR before it, if any), and must not keep it. src's error, io.EOF included,
// is returned once everything before it has been read.
func NewLineReader(src io.Reader, max int, fn func(dst, line []byte) []byte) io.Reader {
	if max < 1 {
		max = 1
	}
	r := &lineReader{max: max, fn: fn}
	r.Src, r.Feed, r.End = src, r.feed, r.end
	return r
}

type lineReader struct {
	Filter
	max     int
	fn      func(dst, line []byte) []byte
	line    []byte // the current line so far, while it is at most max bytes
	passing bool   // the current line outgrew max: pass it on as it arrives
}

// end gives a last line without LF to fn.
func (r *lineReader) end() {
	if len(r.line) > 0 {
		r.Out = r.fn(r.Out, r.line)
		r.line = r.line[:0]
	}
}

// feed processes bytes read from src.
func (r *lineReader) feed(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if r.passing {
			if i < 0 {
				r.Out = append(r.Out, p...)
				return
			}
			r.Out = append(r.Out, p[:i+1]...)
			r.passing = false
			p = p[i+1:]
			continue
		}
		if i < 0 {
			if len(r.line)+len(p) > r.max {
				r.Out = append(r.Out, r.line...)
				r.Out = append(r.Out, p...)
				r.line = nil // do not hold max bytes while the rest streams past
				r.passing = true
				return
			}
			r.line = append(r.line, p...)
			return
		}
		seg := p[:i+1]
		p = p[i+1:]
		switch {
		case len(r.line)+len(seg) > r.max:
			r.Out = append(r.Out, r.line...)
			r.Out = append(r.Out, seg...)
		case len(r.line) == 0:
			r.Out = r.fn(r.Out, seg)
		default:
			r.line = append(r.line, seg...)
			r.Out = r.fn(r.Out, r.line)
		}
		r.line = r.line[:0]
		if cap(r.line) > 4*chunkSize {
			r.line = nil
		}
	}
}
