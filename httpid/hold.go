package httpid

import (
	"sync"

	"github.com/rpcid/rpcid/internal/restore"
)

// A hold charges the buffers a streamed body holds (an event, or a JSON
// text, while it arrives) to the Transport's Budget (see restore.Budget),
// so that the bytes held across all bodies stay within it. Its zero value
// with a nil budget charges nothing.
type hold struct {
	budget *restore.Budget
	mu     sync.Mutex // Close may end the body while Read runs
	taken  int
	ended  bool
}

// set makes the bytes charged n, taking or giving back the difference, and
// reports whether they fit; when they do not, the charge is left as it
// was. After end, it charges nothing and reports true.
func (h *hold) set(n int) bool {
	if h.budget == nil {
		return true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.ended:
	case n > h.taken:
		if !h.budget.Take(n - h.taken) {
			return false
		}
		h.taken = n
	case n < h.taken:
		h.budget.Give(h.taken - n)
		h.taken = n
	}
	return true
}

// end gives back all the body charged; it charges nothing more.
func (h *hold) end() {
	if h.budget == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.budget.Give(h.taken)
	h.taken, h.ended = 0, true
}
