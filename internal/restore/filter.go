package restore

import (
	"io"
	"sync"
)

// chunkSize is how many bytes a Filter asks its source for at a time.
const chunkSize = 16 << 10

// maxIdleOut is the capacity above which a Filter lets go of its output
// buffer once the reader has drained it, so that one long burst does not pin
// its memory for a stream's lifetime.
const maxIdleOut = 256 << 10

// A chunk is a read buffer. Chunks are recycled when a Filter's source has
// ended, so a short stream costs no allocation for one.
type chunk [chunkSize]byte

var chunkPool = sync.Pool{New: func() any { return new(chunk) }}

// A Filter is the read loop shared by this module's streaming rewriters:
// NewLineReader and NewStdioReader here, httpid's event-stream and
// JSON-stream bodies, and rpcid proxy's rewrite of the 2024-11-05 endpoint
// event. Read asks Src for a chunk,
// gives it to F.Feed, which appends what is to be passed on to Out (holding
// back what it must), and returns as soon as any of Out is ready, without
// waiting to fill its buffer. When Src returns an error (io.EOF included),
// F.End is called once to flush what is held, and the error is returned after
// Out is drained. Feed may set Pass: once Out is drained, Read then reads Src
// directly.
//
// Out's buffer comes from a pool shared by all Filters and goes back to it
// once Src has ended (or Pass is set) and the reader has drained it, so a
// short stream costs no allocation for it. Feeders may hold bytes in buffers
// of the same pool (GetBuf, PutBuf).
type Filter struct {
	// Src is the stream read.
	Src io.Reader
	// F takes the chunks read from Src (usually the type that embeds the
	// Filter).
	F Feeder
	// Out holds the bytes ready for the reader, from an offset the Filter
	// keeps; Feed and End append to it.
	Out []byte
	// Pass, set by Feed, makes Read read Src directly once Out is drained.
	Pass bool

	off  int
	err  error   // Src's error, returned once Out is drained
	buf  *chunk  // until Src's error or Pass
	outp *[]byte // the pooled buffer behind Out, until given back
}

// A Feeder is what a Filter gives the chunks it reads.
type Feeder interface {
	// Feed takes a chunk read from Src and appends to the Filter's Out
	// what is to be passed on; it must not keep p.
	Feed(p []byte)
	// End is called once, when Src has returned an error, to append to Out
	// what Feed still holds.
	End()
}

// maxPooledBuf is the capacity in bytes of the largest buffer PutBuf keeps.
const maxPooledBuf = 64 << 10

var bufPool = sync.Pool{New: func() any { return new([]byte) }}

// GetBuf returns a pooled buffer: *p has length 0 and a capacity of at least
// n bytes. Give it back with PutBuf once its bytes are no longer used.
func GetBuf(n int) (p *[]byte) {
	p = bufPool.Get().(*[]byte)
	if cap(*p) < n {
		*p = make([]byte, 0, n)
	}
	return p
}

// PutBuf gives a buffer from GetBuf back to the pool, with b, the slice
// last grown from it (which may have been reallocated by append), as its
// bytes. A buffer whose capacity exceeds 64 KiB is left to the garbage
// collector, so that one long message does not pin its memory in the pool.
func PutBuf(p *[]byte, b []byte) {
	if cap(b) > maxPooledBuf {
		b = nil
	}
	*p = b[:0]
	bufPool.Put(p)
}

// Drained reports whether the reader has read everything in Out.
func (f *Filter) Drained() bool { return f.off == len(f.Out) }

// Read implements io.Reader.
func (f *Filter) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for f.off == len(f.Out) {
		f.Out, f.off = f.Out[:0], 0
		if f.err != nil || f.Pass {
			if f.outp != nil {
				// Nothing is appended to Out any more.
				PutBuf(f.outp, f.Out)
				f.outp, f.Out = nil, nil
			}
			if f.err != nil {
				return 0, f.err
			}
			if f.buf != nil {
				chunkPool.Put(f.buf)
				f.buf = nil
			}
			return f.Src.Read(p)
		}
		if f.buf == nil {
			f.buf = chunkPool.Get().(*chunk)
		}
		n, err := f.Src.Read(f.buf[:])
		if want := n + n/16; cap(f.Out) < want {
			// Out is empty: make room for what n bytes usually become (an
			// id restored longer than received, an event held from the
			// chunk before), so that it is not grown step by step.
			if f.outp == nil {
				f.outp = GetBuf(want)
				f.Out = *f.outp
			} else {
				f.Out = make([]byte, 0, want)
			}
		}
		f.F.Feed(f.buf[:n])
		if err != nil {
			f.err = err
			chunkPool.Put(f.buf)
			f.buf = nil
			f.F.End()
		}
		if cap(f.Out) > maxIdleOut && len(f.Out) == 0 {
			f.Out = nil
		}
	}
	n := copy(p, f.Out[f.off:])
	f.off += n
	return n, nil
}
