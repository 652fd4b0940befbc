package interop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A watch collects what a process writes to standard error and reports when
// a line has begun with changedMarker.
type watch struct {
	lockedBuffer
	once sync.Once
	seen chan struct{} // closed when changedMarker has been written
}

func newWatch() *watch { return &watch{seen: make(chan struct{})} }

func (w *watch) Write(p []byte) (int, error) {
	n, err := w.lockedBuffer.Write(p)
	if strings.Contains(w.String(), changedMarker) {
		w.once.Do(func() { close(w.seen) })
	}
	return n, err
}

func (w *watch) changed() bool {
	select {
	case <-w.seen:
		return true
	default:
		return false
	}
}

// TestProxyStdioGoSDK runs go-sdk's CommandTransport with "rpcid proxy --
// SERVER", where SERVER (this test binary as stringifyServer) turns the
// numeric ids in its output into strings: the client connects and calls a
// tool twice, and the proxy exits with the server when the client closes.
// Control: the same client running SERVER itself fails.
func TestProxyStdioGoSDK(t *testing.T) {
	t.Parallel()
	argv, env := selfServer(t, "stringify")

	t.Run("through the proxy", func(t *testing.T) {
		t.Parallel()
		cmd := exec.Command(rpcidBinary(t), append([]string{"proxy", "--"}, argv...)...)
		cmd.Env = env
		w := newWatch()
		cmd.Stderr = w
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		start := time.Now()
		// TerminateDuration bounds how long Close waits for the proxy after
		// closing its stdin before sending SIGTERM; a proxy that exits with
		// its server needs milliseconds, and one that is signalled exits with
		// status 143, which fails the session.
		err := goSDKSessionOver(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: wait})
		if err != nil {
			t.Fatalf("go-sdk client through rpcid proxy: %v\nstandard error:\n%s", err, w.String())
		}
		t.Logf("session and exit in %v", time.Since(start).Round(time.Millisecond))
		if !w.changed() {
			t.Errorf("the server changed no id; standard error:\n%s", w.String())
		}
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("rpcid proxy exited with status %d, want 0 (the server's)", code)
		}
		// Without -v the proxy writes nothing of its own in stdio mode: every
		// line is the server's, passed through.
		for _, line := range strings.SplitAfter(w.String(), "\n") {
			if line != "" && !strings.HasPrefix(line, changedMarker) {
				t.Errorf("standard error has a line that is not the server's: %q", line)
			}
		}
	})

	t.Run("control without the proxy fails", func(t *testing.T) {
		t.Parallel()
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = env
		w := newWatch()
		cmd.Stderr = w
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			done <- goSDKSessionOver(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second})
		}()
		var err error
		hung := false
		select {
		case err = <-done:
		case <-w.seen:
			// The client has the response with the changed id. One that
			// matched it would end by itself at once; see runUntilHang.
			select {
			case err = <-done:
			case <-time.After(grace):
				hung = true
				cancel()
				select {
				case err = <-done:
				case <-time.After(wait):
					t.Fatalf("session did not end %v after cancellation", wait)
				}
			}
		}
		if err == nil {
			t.Fatalf("the go-sdk client succeeded with the stringifying server and no proxy; does the server change ids?")
		}
		if !w.changed() {
			t.Fatalf("failed before the server changed any id: %v\nstandard error:\n%s", err, w.String())
		}
		t.Logf("without the proxy: %v (hung: %v)", err, hung)
	})
}

// A step of stdioScript: the client writes request and a newline, and the
// server answers with reply.
type step struct {
	request string
	reply   wire
}

// stdioScript is the conversation of rawServer, a JSON-RPC server without an
// SDK whose output covers what the proxy must pass through exactly: batches,
// error responses, requests from the server, a duplicate id member, lines
// that are not JSON, an empty line, a 20 MiB line, CRLF, and ids that the
// rpcid rule equates with the sent ones in other spellings. Each reply is
// built as a wire, so the bytes the client must receive are written down
// independently of any scanner. The server writes the same bytes whatever
// examined says; examined says whether the proxy examines 20 MiB lines
// (-max-message-size above it) and so what the client must receive.
func stdioScript(examined bool) []step {
	var s []step
	add := func(request string, reply func(w *wire)) {
		var w wire
		reply(&w)
		s = append(s, step{request, w})
	}
	// One response; the "id" members nested in its result are not its id.
	add(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, func(w *wire) {
		w.raw(`{"jsonrpc":"2.0","result":{"id":1,"note":{"id":"1"}},"id":`).id(`"1"`, `1`).raw("}\n")
	})
	// A batch with a notification, answered out of order with insignificant
	// whitespace, one answer an error response whose data holds an id.
	add(`[{"jsonrpc":"2.0","id":2,"method":"a"},{"jsonrpc":"2.0","method":"n"},{"jsonrpc":"2.0","id":3,"method":"b"}]`, func(w *wire) {
		w.raw(`[ {"jsonrpc" : "2.0", "id" : `).id(`"3"`, `3`).raw(` , "result" : [ ] },` + "\t")
		w.raw(`{"jsonrpc":"2.0","error":{"code":-32601,"message":"Method not found","data":{"id":"2"}},"id":`).id(`"2"`, `2`).raw("} ]\n")
	})
	// Lines that pass unchanged, then the response.
	add(`{"jsonrpc":"2.0","id":4,"method":"c"}`, func(w *wire) {
		w.raw("server log line, not JSON\n")
		w.raw(`{"jsonrpc":"2.0","id":"4","method":"ping"}` + "\n")                                  // a request from the server: its id is the server's own
		w.raw(`{"jsonrpc":"2.0","id":"4","id":"4","result":"two ids"}` + "\n")                      // a duplicate id member: left alone
		w.raw(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}` + "\n") // null id
		w.raw(`{"jsonrpc":"2.0","id":"99","result":"matches nothing"}` + "\n")
		w.raw("\n")
		w.raw(`{"jsonrpc":"2.0","id":`).id(`"4"`, `4`).raw(`,"result":"four"}` + "\n")
	})
	// A 20 MiB line: restored if examined; else it passes unchanged, the id
	// stays pending, and the short response after it is restored. A second
	// answer matches nothing and passes unchanged.
	add(`{"jsonrpc":"2.0","id":5,"method":"big"}`, func(w *wire) {
		if examined {
			w.raw(`{"jsonrpc":"2.0","id":`).id(`"5"`, `5`).raw(`,"result":"` + big() + `"}` + "\n")
			w.raw(`{"jsonrpc":"2.0","id":"5","result":"small"}` + "\n")
		} else {
			w.raw(`{"jsonrpc":"2.0","id":"5","result":"` + big() + `"}` + "\n")
			w.raw(`{"jsonrpc":"2.0","id":`).id(`"5"`, `5`).raw(`,"result":"small"}` + "\n")
		}
	})
	// Spellings the rule equates: restored to the bytes sent.
	add(`{"jsonrpc":"2.0","id":"ab","method":"d"}`, func(w *wire) {
		w.raw(`{"jsonrpc":"2.0","id":`).id(`"a\u0062"`, `"ab"`).raw(`,"result":{}}` + "\n")
	})
	add(`{"jsonrpc":"2.0","id":70,"method":"e"}`, func(w *wire) {
		w.raw(`{"jsonrpc":"2.0","id":`).id(`7e1`, `70`).raw(`,"result":{}}` + "\n")
	})
	// An id already spelled as sent.
	add(`{"jsonrpc":"2.0","id":"six","method":"f"}`, func(w *wire) {
		w.raw(`{"jsonrpc":"2.0","id":"six","result":6}` + "\n")
	})
	// A line ending in CRLF: CR is JSON whitespace, the line is one message.
	add(`{"jsonrpc":"2.0","id":8,"method":"g"}`, func(w *wire) {
		w.raw(`{"jsonrpc":"2.0","id":`).id(`"8"`, `8`).raw(`,"result":"crlf"}` + "\r\n")
	})
	return s
}

// TestProxyStdioBytes runs "rpcid proxy -v -- SERVER" with rawServer, with
// the default message size limit and with one above the script's largest
// line, and checks that the client receives every byte the server wrote,
// except the restored ids, that -v logs the restored ids and the unmatched
// ones, and that the proxy exits with the server's status when the client
// closes its standard input.
func TestProxyStdioBytes(t *testing.T) {
	t.Parallel()
	argv, env := selfServer(t, "raw")
	received := []string{`"1"`, `"2"`, `"3"`, `"4"`, `"5"`, `"a\u0062"`, `7e1`, `"8"`}
	sent := []string{`1`, `2`, `3`, `4`, `5`, `"ab"`, `70`, `8`}
	for _, c := range []struct {
		name     string
		flags    []string
		examined bool
		unmatch  []string
	}{
		{"default limit", []string{"-v"}, false, []string{`"99"`}},
		{"-max-message-size " + bigLimit, []string{"-v", "-max-message-size", bigLimit}, true, []string{`"99"`, `"5"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string{"proxy"}, c.flags...), "--")
			cmd := exec.Command(rpcidBinary(t), append(args, argv...)...)
			cmd.Env = env
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			stderr := &lockedBuffer{}
			cmd.Stderr = stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			script := stdioScript(c.examined)
			var errs []string
			done := make(chan error, 1)
			go func() {
				for i, st := range script {
					if _, err := io.WriteString(stdin, st.request+"\n"); err != nil {
						done <- fmt.Errorf("step %d: writing the request: %v", i+1, err)
						return
					}
					got := make([]byte, len(st.reply.want))
					if n, err := io.ReadFull(stdout, got); err != nil {
						done <- fmt.Errorf("step %d: reading the reply: %v; %s", i+1, err, firstDiff(got[:n], st.reply.want))
						return
					}
					if !bytes.Equal(got, st.reply.want) {
						errs = append(errs, fmt.Sprintf("step %d (request %s): %s", i+1, st.request, firstDiff(got, st.reply.want)))
					}
				}
				stdin.Close()
				rest, err := io.ReadAll(stdout)
				if err != nil || len(rest) > 0 {
					done <- fmt.Errorf("after the script: %d more bytes (%.80q), %v", len(rest), rest, err)
					return
				}
				done <- cmd.Wait()
			}()
			select {
			case err = <-done:
			case <-time.After(wait):
				cmd.Process.Kill()
				<-done
				t.Fatalf("the script did not end within %v; errors so far: %q\nstandard error:\n%s", wait, errs, stderr.String())
			}
			for _, e := range errs {
				t.Error(e)
			}
			if code := exitCode(err); code != rawServerExit {
				t.Errorf("rpcid proxy ended with %v (status %d), want the server's status %d\nstandard error:\n%.2000s", err, code, rawServerExit, stderr.String())
			}
			t.Run("-v", func(t *testing.T) {
				checkVerbose(t, stderr.String(), received, sent, c.unmatch)
			})
		})
	}
}

// checkVerbose checks the log of "rpcid proxy -v": one line
// `restored response id RECEIVED to SENT` for each restored id, and for each
// id that matched nothing a line that names it.
func checkVerbose(t *testing.T, log string, received, sent, unmatched []string) {
	t.Helper()
	for i := range received {
		if want := fmt.Sprintf("restored response id %s to %s", received[i], sent[i]); !strings.Contains(log, want) {
			t.Errorf("-v: no line %q in standard error:\n%.2000s", want, log)
		}
	}
	for _, id := range unmatched {
		found := false
		for _, line := range strings.Split(log, "\n") {
			if strings.Contains(line, id) && !strings.Contains(line, "restored response id") {
				found = true
			}
		}
		if !found {
			t.Errorf("-v: no line names the unmatched id %s; standard error:\n%.2000s", id, log)
		}
	}
}

// TestProxyStdioSignals sends SIGINT, SIGTERM and SIGHUP to "rpcid proxy --
// SERVER" while SERVER (waitServer) runs: the proxy passes the signal on,
// SERVER ends by it, and the proxy exits with 128 + the signal's number, as
// the docs say.
func TestProxyStdioSignals(t *testing.T) {
	t.Parallel()
	argv, env := selfServer(t, "wait")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(rpcidBinary(t), append([]string{"proxy", "--"}, argv...)...)
			cmd.Env = env
			stdin, err := cmd.StdinPipe() // kept open: the server waits on it
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			w := &readyWatch{ready: make(chan struct{})}
			cmd.Stderr = w
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-w.ready:
			case err := <-done:
				t.Fatalf("rpcid proxy exited before the server was ready: %v\n%s", err, w.String())
			case <-time.After(wait):
				cmd.Process.Kill()
				<-done
				t.Fatalf("the server was not ready within %v", wait)
			}
			cmd.Process.Signal(sig)
			select {
			case err = <-done:
			case <-time.After(wait):
				cmd.Process.Kill()
				<-done
				t.Fatalf("rpcid proxy did not exit within %v of %v", wait, sig)
			}
			if code, want := exitCode(err), 128+int(sig); code != want {
				t.Errorf("rpcid proxy exited with %v (status %d) after %v, want status %d\n%s", err, code, sig, want, w.String())
			}
		})
	}
}

// A readyWatch collects standard error and closes ready when readyLine has
// been written.
type readyWatch struct {
	lockedBuffer
	once  sync.Once
	ready chan struct{}
}

func (w *readyWatch) Write(p []byte) (int, error) {
	n, err := w.lockedBuffer.Write(p)
	if strings.Contains(w.String(), readyLine) {
		w.once.Do(func() { close(w.ready) })
	}
	return n, err
}

// TestProxyStdioLongLine checks the "no line-length limit": with
// -max-message-size 4096, a 20 MiB response line passes through unchanged
// and streamed (the client receives its first MiB before the server writes
// the rest, which it does only when the client says so), the id stays
// pending and the next response is restored, and the proxy never holds the
// line whole (its peak resident memory stays under 20 MiB; Linux only).
func TestProxyStdioLongLine(t *testing.T) {
	t.Parallel()
	argv, env := selfServer(t, "long")
	cmd := exec.Command(rpcidBinary(t), append([]string{"proxy", "-max-message-size", "4096", "--"}, argv...)...)
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	readWant := func(want string) error {
		got := make([]byte, len(want))
		if n, err := io.ReadFull(stdout, got); err != nil {
			return fmt.Errorf("%v after %d bytes", err, n)
		}
		if string(got) != want {
			return errors.New(firstDiff(got, []byte(want)))
		}
		return nil
	}
	var hwm int64 = -1
	done := make(chan error, 1)
	go func() {
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"long"}`+"\n")
		if err := readWant(longHead + strings.Repeat("x", 1<<20)); err != nil {
			done <- fmt.Errorf("the first MiB of the long line: %v", err)
			return
		}
		io.WriteString(stdin, "go\n")
		if err := readWant(strings.Repeat("x", 19<<20) + longTail); err != nil {
			done <- fmt.Errorf("the rest of the long line: %v", err)
			return
		}
		if err := readWant(`{"jsonrpc":"2.0","id":1,"result":"short"}` + "\n"); err != nil {
			done <- fmt.Errorf("the response after the long line: %v", err)
			return
		}
		hwm = peakRSS(cmd.Process.Pid)
		stdin.Close()
		done <- cmd.Wait()
	}()
	select {
	case err = <-done:
	case <-time.After(wait):
		cmd.Process.Kill()
		<-done
		t.Fatalf("not done within %v\nstandard error:\n%s", wait, stderr.String())
	}
	if err != nil {
		t.Fatalf("%v\nstandard error:\n%s", err, stderr.String())
	}
	if hwm < 0 {
		t.Logf("peak resident memory not measured: no /proc/PID/status on %s", runtime.GOOS)
		return
	}
	t.Logf("rpcid proxy peak resident memory: %d KiB", hwm>>10)
	if hwm >= 20<<20 {
		t.Errorf("rpcid proxy peak resident memory %d KiB: it held the 20 MiB line whole", hwm>>10)
	}
}

// peakRSS returns the peak resident set size of process pid in bytes
// (VmHWM in /proc/PID/status), or -1 where that is not available.
func peakRSS(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%d kB", &kb); err == nil {
				return kb << 10
			}
		}
	}
	return -1
}
