package main

import (
	"bufio"
	"bytes"
	"encoding/pem"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// buildRpcid builds the command into a temporary directory and returns the
// binary's path.
func buildRpcid(t *testing.T) string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	bin := filepath.Join(t.TempDir(), "rpcid")
	if out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestProxyBinary runs the built rpcid proxy as a separate process, in both
// modes, as a user would.
func TestProxyBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	bin := buildRpcid(t)

	t.Run("http", func(t *testing.T) {
		up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":"0","result":{"protocolVersion":"2025-06-18"}}`)
		}))
		defer up.Close()
		cmd := exec.Command(bin, "proxy", "-listen", "127.0.0.1:0", up.URL+"/mcp")
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		lines := make(chan string, 10)
		go func() {
			sc := bufio.NewScanner(stderr)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		var first string
		select {
		case first = <-lines:
		case <-time.After(wait):
			t.Fatal("no start line")
		}
		m := regexp.MustCompile(`^rpcid proxy: listening on http://(127\.0\.0\.1:[0-9]+)/mcp, forwarding to (.*)$`).FindStringSubmatch(first)
		if m == nil || m[2] != up.URL+"/mcp" {
			t.Fatalf("start line %q", first)
		}
		req := newRequest(t, "POST", "http://"+m[1]+"/mcp", `{"jsonrpc":"2.0","id":0,"method":"initialize"}`)
		if _, body := do(t, req); body != `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18"}}` {
			t.Errorf("client read %s", body)
		}
		evil := newRequest(t, "POST", "http://"+m[1]+"/mcp", `{}`)
		evil.Host = "evil.example"
		if resp, _ := do(t, evil); resp.StatusCode != http.StatusForbidden {
			t.Errorf("Host evil.example: status %d, want 403", resp.StatusCode)
		}
		cmd.Process.Signal(syscall.SIGTERM)
		var rest []string
	drain:
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					break drain
				}
				rest = append(rest, l)
			case <-time.After(wait):
				t.Fatal("stderr did not end after SIGTERM")
			}
		}
		if err := waitBounded(t, cmd); err != nil {
			t.Errorf("after SIGTERM: %v, want exit status 0", err)
		}
		if len(rest) != 0 {
			t.Errorf("stderr after the start line: %q, want nothing without -v", rest)
		}
	})

	// An https upstream is trusted through the system's roots, here a file
	// named by SSL_CERT_FILE (read by crypto/x509 on Unix systems other than
	// macOS).
	t.Run("https", func(t *testing.T) {
		if runtime.GOOS == "darwin" {
			t.Skip("macOS reads roots from the keychain, not SSL_CERT_FILE")
		}
		up := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":"5","result":{}}`)
		}))
		defer up.Close()
		roots := filepath.Join(t.TempDir(), "roots.pem")
		pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: up.Certificate().Raw})
		if err := os.WriteFile(roots, pemBytes, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, trusted := range []bool{true, false} {
			cmd := exec.Command(bin, "proxy", "-listen", "127.0.0.1:0", up.URL)
			if trusted {
				cmd.Env = append(os.Environ(), "SSL_CERT_FILE="+roots, "SSL_CERT_DIR="+filepath.Dir(roots))
			} else {
				empty := filepath.Join(t.TempDir(), "empty.pem")
				os.WriteFile(empty, nil, 0o600)
				cmd.Env = append(os.Environ(), "SSL_CERT_FILE="+empty, "SSL_CERT_DIR="+filepath.Dir(empty))
			}
			addr, lines := startBinary(t, cmd)
			resp, body := do(t, newRequest(t, "POST", "http://"+addr+"/mcp", `{"jsonrpc":"2.0","id":5,"method":"m"}`))
			if trusted && body != `{"jsonrpc":"2.0","id":5,"result":{}}` {
				t.Errorf("trusted https upstream: client read %q", body)
			}
			if !trusted {
				if resp.StatusCode != http.StatusBadGateway || !strings.Contains(body, "certificate") {
					t.Errorf("untrusted https upstream: status %d, body %q; want 502 naming the certificate", resp.StatusCode, body)
				}
				select {
				case l := <-lines:
					if !strings.Contains(l, "certificate") {
						t.Errorf("stderr line %q does not name the certificate", l)
					}
				case <-time.After(wait):
					t.Error("no error line on stderr")
				}
			}
			cmd.Process.Signal(syscall.SIGTERM)
			if err := waitBounded(t, cmd); err != nil {
				t.Errorf("after SIGTERM: %v", err)
			}
		}
	})

	t.Run("stdio", func(t *testing.T) {
		args := append([]string{"proxy", "-v", "--"}, helperCommand(t, "stringify")...)
		t.Setenv("RPCID_PROXY_HELPER_EXIT", "3")
		cmd := exec.Command(bin, args...)
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":"x","method":"ping"}` + "\n")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		err := waitBounded(t, cmd)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 3 {
			t.Errorf("exit: %v, want exit status 3 (the command's)", err)
		}
		if want := `{"jsonrpc":"2.0","id":3,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":"x","result":{}}` + "\n"; stdout.String() != want {
			t.Errorf("stdout %q, want %q", stdout.String(), want)
		}
		want := "helper: standard error passes through\n" +
			"rpcid proxy: restored response id \"3\" to 3\n" +
			"rpcid proxy: 4 lines (2 from the client, 2 from the command); 1 id restored, 0 unmatched\n"
		if stderr.String() != want {
			t.Errorf("stderr %q, want %q", stderr.String(), want)
		}
	})
}

// waitBounded waits for cmd, killing it after the bounded wait.
func waitBounded(t *testing.T, cmd *exec.Cmd) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(wait):
		cmd.Process.Kill()
		t.Fatalf("%s did not end within %v", cmd, wait)
	}
	return nil
}

// startBinary starts cmd, an rpcid proxy in HTTP mode, and returns the
// address from its start line and a channel of its further stderr lines.
func startBinary(t *testing.T, cmd *exec.Cmd) (string, <-chan string) {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	select {
	case first := <-lines:
		m := regexp.MustCompile(`^rpcid proxy: listening on http://(127\.0\.0\.1:[0-9]+)/`).FindStringSubmatch(first)
		if m == nil {
			t.Fatalf("start line %q", first)
		}
		return m[1], lines
	case <-time.After(wait):
		t.Fatal("no start line")
	}
	return "", nil
}

// A host that gives up on a stdio server ignoring SIGTERM kills the proxy
// with SIGKILL, which the proxy cannot pass on: on Linux the kernel then ends
// the command too, so that no server lives on without its client.
func TestProxyStdioKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the command outlives a proxy killed with SIGKILL except on Linux (see bindToProxy)")
	}
	bin := buildRpcid(t)
	cmd := exec.Command(bin, append([]string{"proxy", "--"}, helperCommand(t, "deaf")...)...)
	stdout := startPiped(t, cmd) // its standard input kept open: the command sees no end of input
	var err error
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(l)
	}()
	var pid int
	select {
	case l := <-line:
		if pid, err = strconv.Atoi(l); err != nil {
			t.Fatalf("the command printed %q, want its process id", l)
		}
	case <-time.After(wait):
		t.Fatal("the command printed nothing")
	}
	// It ignores SIGTERM, passed on to it: the proxy waits for it.
	cmd.Process.Signal(syscall.SIGTERM)
	time.Sleep(200 * time.Millisecond)
	if !alive(pid) {
		t.Fatal("the command ended after SIGTERM, which it ignores")
	}
	cmd.Process.Kill()
	cmd.Wait()
	for deadline := time.Now().Add(wait); alive(pid); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
			t.Fatalf("the command (process %d) still runs %v after the proxy was killed", pid, wait)
		}
	}
}

// alive reports whether process pid runs: it exists and is not a zombie
// waiting for a parent to reap it.
func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// startPiped starts cmd with pipes for its standard input, kept open until
// the test ends, and its standard output, which it returns; the process is
// killed when the test ends.
func startPiped(t *testing.T, cmd *exec.Cmd) io.ReadCloser {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Process.Kill()
	})
	return stdout
}
