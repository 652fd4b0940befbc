//go:build unix

package proxy

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in a process group of its own (setpgid), so
// that signals sent to the proxy's group reach only the proxy, which passes
// each on to COMMAND once. Without it, a terminal's Ctrl-C (SIGINT to the
// whole foreground group) or a service manager's kill of the group reached
// COMMAND twice, from the sender and from the proxy: servers that take a
// second SIGINT as "force quit" (uvicorn, npm, vite; asyncio) ended
// abruptly (GoogleCloudPlatform/berglas#158, jdx/fnox#339). Sharing the
// group and not forwarding SIGINT (uv's way before astral-sh/uv#11009) loses
// a SIGINT sent to the proxy alone, and os/signal does not tell which it
// was; einhorn and nextest start children in a group of their own and
// forward, as here.
//
// What follows from it, by design: the terminal's Ctrl-Z stops the proxy
// only (COMMAND runs on until its output pipe is full, and goes on with the
// proxy after fg); COMMAND is in a background group of the terminal, so it
// may write to it (its standard error) unless `stty tostop` is set, but a
// read from /dev/tty stops it with SIGTTIN; processes COMMAND starts get a
// signal only as COMMAND passes it on, as they would if a host that started
// COMMAND signalled it. A proxy killed with SIGKILL takes COMMAND with it on
// Linux (see bindToProxy); elsewhere COMMAND sees the end of its input.
func ownProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}
