//go:build race

package scan

// raceEnabled reports whether the tests run under the race detector.
const raceEnabled = true
