package proxy

import (
	"bufio"
	"bytes"
	"encoding/pem"
	"errors"
	"fmt"
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
	"sync"
	"syscall"
	"testing"
	"time"
)

// buildRpcid builds the command once per test binary, into a temporary
// directory that TestMain removes, and returns the binary's path.
func buildRpcid(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goTool); err != nil {
			goTool = "go"
		}
		built.dir, built.err = os.MkdirTemp("", "rpcid-proxy-test")
		if built.err != nil {
			return
		}
		bin := filepath.Join(built.dir, "rpcid")
		if out, err := exec.Command(goTool, "build", "-o", bin, "github.com/rpcid/rpcid/cmd/rpcid").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		built.path = bin
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

// built is the binary buildRpcid built.
var built struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
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

// TestProxyBinaryFraming runs the built rpcid proxy between this test, as a
// client speaking Content-Length framing (LSP's base protocol, which some
// MCP peers use), and a server that speaks it too and turns ids into
// strings: the client gets each id as it sent it, in a message whose
// Content-Length is its body's new length, a body ending in LF included. A
// server that writes its answer without LF and keeps its output open gets
// it to the client at once.
func TestProxyBinaryFraming(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildRpcid(t)

	t.Run("content-length", func(t *testing.T) {
		cmd := exec.Command(bin, append([]string{"proxy", "-v", "--"}, helperCommand(t, "lsp")...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout := startPipedStdin(t, cmd, stdin)
		br := bufio.NewReader(stdout)
		for _, tt := range []struct{ req, want string }{
			{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"result":{}}`},
			{`{"jsonrpc":"2.0","id":22,"method":"nl"}` + "\n", `{"jsonrpc":"2.0","id":22,"result":{}}` + "\n"},
		} {
			if _, err := io.WriteString(stdin, "Content-Length: "+strconv.Itoa(len(tt.req))+"\r\n\r\n"+tt.req); err != nil {
				t.Fatal(err)
			}
			header, body := readFramed(t, br)
			want := "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: " + strconv.Itoa(len(tt.want)) + "\r\n\r\n"
			if header != want || body != tt.want {
				t.Errorf("client read header %q, body %q; want %q, %q", header, body, want, tt.want)
			}
		}
		stdin.Close()
		if err := waitBounded(t, cmd); err != nil {
			t.Errorf("exit: %v", err)
		}
		for _, l := range []string{`restored response id "1" to 1`, `restored response id "22" to 22`} {
			if !strings.Contains(stderr.String(), l) {
				t.Errorf("stderr %q does not say %q", stderr.String(), l)
			}
		}
	})

	t.Run("no LF", func(t *testing.T) {
		cmd := exec.Command(bin, append([]string{"proxy", "--"}, helperCommand(t, "nonl")...)...)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdout := startPipedStdin(t, cmd, stdin)
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
		want := `{"jsonrpc":"2.0","id":1,"result":{}}`
		got := make(chan string, 1)
		go func() {
			buf := make([]byte, len(want))
			n, _ := io.ReadFull(stdout, buf)
			got <- string(buf[:n])
		}()
		select {
		case s := <-got:
			if s != want {
				t.Errorf("client read %q, want %q", s, want)
			}
		case <-time.After(wait):
			t.Fatalf("the answer without LF did not reach the client within %v while the server kept its output open", wait)
		}
		stdin.Close()
		if err := waitBounded(t, cmd); err != nil {
			t.Errorf("exit: %v", err)
		}
	})
}

// startPipedStdin starts cmd, whose standard input pipe stdin is already
// made, with a pipe for its standard output, which it returns; the process
// is killed, and stdin closed, when the test ends.
func startPipedStdin(t *testing.T, cmd *exec.Cmd, stdin io.Closer) io.ReadCloser {
	t.Helper()
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

// readFramed reads one Content-Length framed message from br within the
// bounded wait and returns its header block and body.
func readFramed(t *testing.T, br *bufio.Reader) (header, body string) {
	t.Helper()
	type msg struct {
		header, body string
		err          error
	}
	done := make(chan msg, 1)
	go func() {
		var m msg
		n := -1
		for {
			line, err := br.ReadString('\n')
			m.header += line
			if err != nil {
				m.err = err
				done <- m
				return
			}
			if line == "\r\n" {
				break
			}
			if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if n < 0 {
			m.err = errors.New("no Content-Length")
			done <- m
			return
		}
		b := make([]byte, n)
		_, m.err = io.ReadFull(br, b)
		m.body = string(b)
		done <- m
	}()
	select {
	case m := <-done:
		if m.err != nil {
			t.Fatalf("reading a framed message: %v (header %q, body %q)", m.err, m.header, m.body)
		}
		return m.header, m.body
	case <-time.After(wait):
		t.Fatalf("no framed message within %v", wait)
	}
	return "", ""
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
	return startPipedStdin(t, cmd, stdin)
}
