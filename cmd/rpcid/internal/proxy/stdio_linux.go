package proxy

import (
	"os/exec"
	"runtime"
	"syscall"
)

// bindToProxy makes the kernel end cmd with SIGKILL if the proxy itself
// ends before it without waiting for it: when a host gives up on a server
// that ignores SIGTERM and kills the proxy with SIGKILL, the server must not
// live on without its client. The signal is tied to the thread that starts
// cmd (prctl PR_SET_PDEATHSIG), so the calling goroutine stays locked to its
// thread until the returned function is called, after cmd.Wait.
func bindToProxy(cmd *exec.Cmd) (unlock func()) {
	runtime.LockOSThread()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	return runtime.UnlockOSThread
}
