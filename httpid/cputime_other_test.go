//go:build !(linux || darwin || freebsd)

package httpid_test

import "time"

// processCPU reports -1: CPU time is read only on Linux, macOS and FreeBSD,
// and cpu-ns/op is then not reported.
func processCPU() time.Duration { return -1 }
