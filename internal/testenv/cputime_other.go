//go:build !(linux || darwin || freebsd)

package testenv

import "time"

// ProcessCPU reports -1: CPU time is read only on Linux, macOS and FreeBSD,
// and benchmarks then report no cpu-ns/op.
func ProcessCPU() time.Duration { return -1 }
