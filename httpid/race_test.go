//go:build race

package httpid_test

// raceEnabled reports whether the race detector is on: sync.Pool then drops
// what is put in it at random, so pooled buffers are allocated again.
const raceEnabled = true
