// Package testenv holds what the module's tests share: whether the long
// tests run, whether the race detector is on, and the process's CPU time
// for benchmarks. Only tests import it.
package testenv

import (
	"os"
	"testing"
)

// Long reports whether the long tests run: exhaustive sweeps, soaks and
// large inputs that keep go test ./... from being quick. They run when the
// environment variable RPCID_LONG is 1, as .ci/run sets it.
func Long() bool { return os.Getenv("RPCID_LONG") == "1" }

// SkipUnlessLong skips t unless the long tests run (see Long).
func SkipUnlessLong(t testing.TB) {
	t.Helper()
	if !Long() {
		t.Skip("a long test: set RPCID_LONG=1 to run it")
	}
}
