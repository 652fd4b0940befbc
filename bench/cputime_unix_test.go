//go:build linux || darwin || freebsd

package bench

import (
	"time"

	"golang.org/x/sys/unix"
)

// processCPU returns the CPU time this process has used so far (all
// threads, including the garbage collector's), or -1 if it cannot be read.
func processCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return -1
	}
	return time.Duration(ts.Nano())
}
