package restore

import (
	"errors"
	"sync/atomic"
)

// ErrBudget is returned, wrapped, when holding a message would take the
// bytes held in buffers past a Budget's limit.
var ErrBudget = errors.New("buffer budget exhausted")

// A Budget bounds the bytes that the exchanges of a Table hold in buffers at
// once, across all of them: request bodies read to be examined and response
// bodies read in full. Bytes are taken as buffers grow, never ahead of the
// bytes received, and given back when the buffer is no longer held. A nil
// *Budget has no limit.
type Budget struct {
	limit int64
	used  atomic.Int64
}

// NewBudget returns a Budget of limit bytes.
func NewBudget(limit int64) *Budget { return &Budget{limit: limit} }

// Take takes n bytes from b and reports whether they were there; when they
// were not, nothing is taken.
func (b *Budget) Take(n int) bool {
	if b == nil || n <= 0 {
		return true
	}
	if b.used.Add(int64(n)) > b.limit {
		b.used.Add(-int64(n))
		return false
	}
	return true
}

// Give gives back n bytes taken.
func (b *Budget) Give(n int) {
	if b != nil && n > 0 {
		b.used.Add(-int64(n))
	}
}

// Used returns the bytes taken now.
func (b *Budget) Used() int64 {
	if b == nil {
		return 0
	}
	return b.used.Load()
}

// Limit returns b's limit in bytes, or -1 for a nil Budget (none).
func (b *Budget) Limit() int64 {
	if b == nil {
		return -1
	}
	return b.limit
}
