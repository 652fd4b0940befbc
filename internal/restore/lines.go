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
// This is the framing of newline-delimited JSON bodies (httpid's NDJSON and
// JSON Lines responses), one JSON-RPC message or batch per line, which ends
// with the body. rpcid proxy's stdio relay, whose peers may also use
// Content-Length framing or write a message without LF and wait, reads
// through NewStdioReader instead. fn is given the line with its LF (and a
// CR before it, if any), and must not keep it. src's error, io.EOF included,
// is returned once everything before it has been read.
func NewLineReader(src io.Reader, max int, fn func(dst, line []byte) []byte) io.Reader {
	r := new(LineReader)
	r.Init(src, max, lineFunc(fn))
	return r
}

// A LineReader is the reader NewLineReader returns, for a type to embed
// (one allocation for both): Init makes it read src's lines through l.
type LineReader struct {
	Filter
	max     int
	l       Liner
	line    []byte // the current line so far, while it is at most max bytes
	passing bool   // the current line outgrew max: pass it on as it arrives
}

// A Liner replaces each line a LineReader reads: Line appends to dst what
// line (with its LF, if any) becomes, and must not keep line.
type Liner interface {
	Line(dst, line []byte) []byte
}

// lineFunc is a function as a Liner.
type lineFunc func(dst, line []byte) []byte

func (f lineFunc) Line(dst, line []byte) []byte { return f(dst, line) }

// Init makes r read src's lines as NewLineReader's reader does, with
// l.Line in place of fn. r must be new: its zero value.
func (r *LineReader) Init(src io.Reader, max int, l Liner) {
	if max < 1 {
		max = 1
	}
	r.max, r.l = max, l
	r.Src, r.F = src, r
}

// End gives a last line without LF to fn.
func (r *LineReader) End() {
	if len(r.line) > 0 {
		r.Out = r.l.Line(r.Out, r.line)
		r.line = r.line[:0]
	}
}

// Feed processes bytes read from src.
func (r *LineReader) Feed(p []byte) {
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
			r.Out = r.l.Line(r.Out, seg)
		default:
			r.line = append(r.line, seg...)
			r.Out = r.l.Line(r.Out, r.line)
		}
		r.line = r.line[:0]
		if cap(r.line) > 4*chunkSize {
			r.line = nil
		}
	}
}
