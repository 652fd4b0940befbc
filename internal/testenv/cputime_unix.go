//go:build linux || darwin || freebsd

package testenv

import (
	"syscall"
	"time"
)

// ProcessCPU returns the user and system CPU time this process has used so
// far, or -1 if it cannot be read.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
