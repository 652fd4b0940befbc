//go:build race

package testenv

// RaceEnabled reports whether the race detector is on: sync.Pool then drops
// what is put in it at random, so pooled buffers are allocated again, and
// everything runs several times slower.
const RaceEnabled = true
