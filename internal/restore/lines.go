package restore

import (
	"bytes"
	"io"
)

// readSize is how many bytes a lineReader asks its source for at a time.
const readSize = 32 << 10

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
	return &lineReader{src: src, max: max, fn: fn}
}

type lineReader struct {
	src     io.Reader
	max     int
	fn      func(dst, line []byte) []byte
	buf     []byte // chunk read from src
	line    []byte // the current line so far, while it is at most max bytes
	out     []byte // bytes ready for the reader, from out[off]
	off     int
	passing bool  // the current line outgrew max: pass it on as it arrives
	err     error // src's error, returned once out is drained
}

func (r *lineReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for r.off == len(r.out) {
		r.out, r.off = r.out[:0], 0
		if r.err != nil {
			return 0, r.err
		}
		if r.buf == nil {
			r.buf = make([]byte, readSize)
		}
		n, err := r.src.Read(r.buf)
		r.feed(r.buf[:n])
		if err != nil {
			r.err = err
			if len(r.line) > 0 { // a last line without LF
				r.out = r.fn(r.out, r.line)
				r.line = r.line[:0]
			}
		}
		if cap(r.out) > 4*readSize && r.off == len(r.out) {
			r.out = nil // do not pin the memory of one long burst
		}
	}
	n := copy(p, r.out[r.off:])
	r.off += n
	return n, nil
}

// feed processes bytes read from src.
func (r *lineReader) feed(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if r.passing {
			if i < 0 {
				r.out = append(r.out, p...)
				return
			}
			r.out = append(r.out, p[:i+1]...)
			r.passing = false
			p = p[i+1:]
			continue
		}
		if i < 0 {
			if len(r.line)+len(p) > r.max {
				r.out = append(r.out, r.line...)
				r.out = append(r.out, p...)
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
			r.out = append(r.out, r.line...)
			r.out = append(r.out, seg...)
		case len(r.line) == 0:
			r.out = r.fn(r.out, seg)
		default:
			r.line = append(r.line, seg...)
			r.out = r.fn(r.out, r.line)
		}
		r.line = r.line[:0]
		if cap(r.line) > 4*readSize {
			r.line = nil
		}
	}
}
