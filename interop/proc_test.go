package interop

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serverEnv names the environment variable that makes the test binary run as
// one of the stdio servers of server_test.go instead of running tests; its
// value names the server.
const serverEnv = "RPCID_INTEROP_SERVER"

// binDir holds the rpcid binary built for this test process.
var binDir string

func TestMain(m *testing.M) {
	if name := os.Getenv(serverEnv); name != "" {
		os.Exit(runServer(name))
	}
	flag.Parse()
	dir, err := os.MkdirTemp("", "rpcid-interop-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var build struct {
	once sync.Once
	path string
	err  error
}

// rpcidBinary returns the path of the rpcid command, built once per test
// process from ../cmd/rpcid with the root module's own go.mod, as
// "go build ./cmd/rpcid" in a clone builds it.
func rpcidBinary(t testing.TB) string {
	t.Helper()
	build.once.Do(func() {
		gobin, err := exec.LookPath("go")
		if err != nil {
			build.err = err
			return
		}
		build.path = filepath.Join(binDir, "rpcid")
		cmd := exec.Command(gobin, "build", "-o", build.path, "./cmd/rpcid")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			build.err = fmt.Errorf("go build ./cmd/rpcid: %v\n%s", err, out)
			return
		}
		watchSources()
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.path
}

// srcLinks is a directory in this module of symbolic links to the
// directories of the packages the rpcid binary is built from that are not
// compiled into this test binary too: ../cmd/rpcid, its packages under
// ../cmd/rpcid/internal, and ../rpcidtest (the others, the root package,
// httpid, internal/restore and internal/scan, are, so go test sees their
// changes already).
const srcLinks = "testdata/src"

// watchSources lists each directory linked from srcLinks, so that go test's
// result cache depends on the names, sizes and modification times of their
// files: a change to the command then reruns these tests instead of
// reporting a cached result. (The binary is built by a child process, whose
// reads go test does not see, and go test ignores files outside this module
// that the test itself reads; the links put them inside.) Where the links
// cannot be read (a checkout without symbolic links), the tests run all the
// same, and "go test -count=1" reruns them.
func watchSources() {
	links, _ := os.ReadDir(srcLinks)
	for _, l := range links {
		os.ReadDir(filepath.Join(srcLinks, l.Name()))
	}
}

// selfServer returns a command line that runs this test binary as the stdio
// server named name (see runServer), and the environment it needs.
func selfServer(t testing.TB, name string) (argv []string, env []string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe}, append(os.Environ(), serverEnv+"="+name)
}

// startLine is the line rpcid proxy prints to standard error when it accepts
// connections: "rpcid proxy: listening on http://HOST:PORT/PATH,
// forwarding to URL". HOST must be 127.0.0.1 in these tests.
var startLine = regexp.MustCompile(`^rpcid proxy: listening on (http://127\.0\.0\.1:[1-9][0-9]*)(/\S*), forwarding to (\S+)$`)

// A proxy is one running "rpcid proxy" process in HTTP mode.
type proxy struct {
	cmd  *exec.Cmd
	URL  string // the address of the start line: http://127.0.0.1:PORT/PATH
	Base string // http://127.0.0.1:PORT
	Host string // 127.0.0.1:PORT

	stderr *lockedBuffer // standard error after the start line
	done   chan struct{} // closed when the process has exited
	err    error         // cmd.Wait's result, once done is closed
}

// startProxy runs "rpcid proxy -listen 127.0.0.1:0 [extra ...] upstream" and
// waits (at most wait) for its start line. The proxy is stopped with SIGTERM
// when the test ends, and must exit within wait.
func startProxy(t *testing.T, upstream string, extra ...string) *proxy {
	t.Helper()
	return startProxyEnv(t, nil, upstream, extra...)
}

// startProxyEnv is startProxy with the environment env (nil: this
// process's).
func startProxyEnv(t *testing.T, env []string, upstream string, extra ...string) *proxy {
	t.Helper()
	args := append([]string{"proxy", "-listen", "127.0.0.1:0"}, extra...)
	args = append(args, upstream)
	cmd := exec.Command(rpcidBinary(t), args...)
	cmd.Env = env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proxy{cmd: cmd, stderr: &lockedBuffer{}, done: make(chan struct{})}
	first := make(chan string, 1)
	go func() {
		br := bufio.NewReader(stderr)
		line, err := br.ReadString('\n')
		if err != nil {
			line += fmt.Sprintf(" (then %v)", err)
		}
		first <- strings.TrimSuffix(line, "\n")
		io.Copy(p.stderr, br)
		p.err = cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() { p.stop(t) })
	var line string
	select {
	case line = <-first:
	case <-time.After(wait):
		t.Fatalf("rpcid %s: no start line within %v", strings.Join(args, " "), wait)
	}
	m := startLine.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("rpcid %s: first line of standard error is %q, want %q", strings.Join(args, " "), line, startLine)
	}
	u, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	if m[2] != u.Path || m[3] != upstream {
		t.Fatalf("start line %q: want path %q and forwarding to %q", line, u.Path, upstream)
	}
	p.URL, p.Base, p.Host = m[1]+m[2], m[1], strings.TrimPrefix(m[1], "http://")
	return p
}

// stop sends SIGTERM and waits for the process to exit (at most wait).
func (p *proxy) stop(t *testing.T) {
	t.Helper()
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(wait):
		p.cmd.Process.Kill()
		<-p.done
		t.Errorf("rpcid proxy did not exit within %v of SIGTERM", wait)
	}
}

// stopped stops the proxy and returns what it wrote to standard error after
// its start line, and its exit error.
func (p *proxy) stopped(t *testing.T) (string, error) {
	t.Helper()
	p.stop(t)
	return p.stderr.String(), p.err
}

// quiet stops the proxy and fails t if it wrote anything after its start
// line: without -v, the docs allow only the start line and errors, and a
// session that succeeds has none.
func (p *proxy) quiet(t *testing.T) {
	t.Helper()
	out, err := p.stopped(t)
	if out != "" {
		t.Errorf("rpcid proxy without -v wrote, after its start line:\n%s", out)
	}
	if err != nil {
		t.Errorf("rpcid proxy, stopped with SIGTERM: %v", err)
	}
}

// A lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// exitCode returns the exit status of a process that ended with err, as
// cmd.Wait returned it, or -1 if it was not an exit.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
