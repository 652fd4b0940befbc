//go:build unix

package proxy

import (
	"bufio"
	"errors"
	"github.com/rpcid/rpcid/internal/testenv"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The proxy runs in a process group of its own, as a terminal's job does,
// and a signal goes to the whole group, as a terminal's Ctrl-C (SIGINT) or a
// service manager's stop (SIGTERM) does: the command gets it once, from the
// proxy. It got it twice, from the sender and from the proxy, when it shared
// the proxy's group: servers that take a second SIGINT as "force quit" ended
// abruptly.
//
// The real binary, too, ends on SIGTERM while its client reads nothing and
// the command's output waits in the pipe: it exits with the command's status.
func TestProxyStdioProcessGroup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildRpcid(t)
	// SIGQUIT too (a terminal's Ctrl-\), which the proxy now passes on
	// instead of dying of it.
	// SIGQUIT always; SIGINT, SIGTERM and SIGHUP take the same path, and
	// run with RPCID_LONG=1.
	for _, s := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(s.String(), func(t *testing.T) {
			if s != syscall.SIGQUIT && !testenv.Long() {
				t.Skip("RPCID_LONG=1 runs every signal")
			}
			cmd := exec.Command(bin, append([]string{"proxy", "--"}, helperCommand(t, "sigcount")...)...)
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			out := bufio.NewReader(startPiped(t, cmd))
			lines := make(chan string, 2)
			go func() {
				for {
					l, err := out.ReadString('\n')
					if err != nil {
						close(lines)
						return
					}
					lines <- strings.TrimSpace(l)
				}
			}()
			next := func() string {
				t.Helper()
				select {
				case l := <-lines:
					return l
				case <-time.After(wait):
					t.Fatalf("the command printed nothing within %v", wait)
				}
				return ""
			}
			if l := next(); l != "ready" {
				t.Fatalf("the command printed %q, want ready", l)
			}
			if err := syscall.Kill(-cmd.Process.Pid, s); err != nil {
				t.Fatal(err)
			}
			if l := next(); l != "1" {
				t.Errorf("the command got %s %s signals, want 1", l, s)
			}
			if err := waitBounded(t, cmd); err != nil {
				t.Errorf("proxy: %v, want exit status 0", err)
			}
		})
	}
	t.Run("SIGTERM, client not reading", func(t *testing.T) {
		cmd := exec.Command(bin, append([]string{"proxy", "--"}, helperCommand(t, "flood")...)...)
		// A pipe of the test's own, which cmd.Wait leaves open (it closes
		// one from StdoutPipe, and the proxy's write then fails).
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		cmd.Stdout = w
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		w.Close()
		t.Cleanup(func() {
			stdin.Close()
			cmd.Process.Kill()
		})
		out := bufio.NewReader(r)
		line := make(chan string, 1)
		go func() {
			l, _ := out.ReadString('\n')
			line <- l // and nothing more is read
		}()
		select {
		case <-line:
		case <-time.After(wait):
			t.Fatal("the command printed nothing")
		}
		// Time to fill both pipes (128 KiB; it writes far faster), so
		// that output waits when the command ends.
		time.Sleep(300 * time.Millisecond)
		cmd.Process.Signal(syscall.SIGTERM)
		err = waitBounded(t, cmd)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(syscall.SIGTERM) {
			t.Errorf("proxy: %v, want exit status %d (the command's, ended by the SIGTERM passed on)", err, 128+int(syscall.SIGTERM))
		}
	})
}
