//go:build !linux

package proxy

import "os/exec"

// bindToProxy does nothing where the kernel cannot end a child with its
// parent: there, a command that ignores the signals passed on to it can
// outlive a proxy killed with SIGKILL.
func bindToProxy(cmd *exec.Cmd) (unlock func()) { return func() {} }
