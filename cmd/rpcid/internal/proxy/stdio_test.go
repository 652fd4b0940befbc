package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rpcid/rpcid/internal/testenv"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// wait bounds every wait in the proxy tests.
const wait = 10 * time.Second

// helperEnv names the environment variable that makes the test binary act as
// a stdio server for the proxy (see TestProxyHelperProcess).
const helperEnv = "RPCID_PROXY_HELPER"

// helperCommand returns the command line that runs this test binary as the
// stdio server mode of TestProxyHelperProcess. The mode is set in the
// environment with t.Setenv, which the proxy passes on to its COMMAND.
func helperCommand(t *testing.T, mode string) []string {
	t.Setenv(helperEnv, mode)
	return []string{os.Args[0], "-test.run=^TestProxyHelperProcess$"}
}

// TestProxyHelperProcess is not a test: run with RPCID_PROXY_HELPER set, it
// is a stdio server started by the proxy under test. Modes:
//
//	stringify  answers each request with its id turned into a string (a
//	           number n becomes "n"); method "ghost" is answered with id
//	           "999"; method "long" with a result of 1 MiB; method "len"
//	           with the length of the request line as received. Writes one
//	           line to standard error first. Exits with status
//	           RPCID_PROXY_HELPER_EXIT (default 0) at the end of its input.
//	exit       exits at once with status RPCID_PROXY_HELPER_EXIT.
//	kill       kills itself with SIGKILL.
//	trap       prints "ready", waits for SIGTERM and exits with status 42.
//	burst      writes burstLines notifications at once and exits 0.
//	burstpid   burst, after a line with its process id.
//	deaf       ignores SIGINT, SIGTERM and SIGHUP, prints its process id and
//	           exits with status 1 after 3*wait.
//	closein    closes its standard input, prints "ready", and exits with
//	           status 0 after SIGTERM, 1 after wait.
//	flood      prints its process id, then writes a notification line
//	           without pause and never reads its input, as long as its
//	           writes succeed (a failing one raises SIGPIPE, which ends it);
//	           exits with status 1 after 3*wait.
//	flood-nosigpipe
//	           the same, ignoring SIGPIPE: after a write fails it reads its
//	           input to the end and exits with status
//	           RPCID_PROXY_HELPER_EXIT (1 when its input does not end within
//	           3*wait).
//	echo       writes each line it reads to standard error after "got: ",
//	           and answers each request but method "hold" with the id
//	           bytes it received, method "stringify" with them quoted,
//	           and method "ghost" with id 999.
//	lsp        stringify over Content-Length framing (LSP's base protocol):
//	           reads framed requests and answers each with a Content-Type
//	           and a Content-Length field and a body without LF, or with a
//	           LF ending the body for method "nl".
//	nonl       reads one line and answers it with id "1" and no LF, then
//	           reads its input to the end and exits 0.
//	floodterm  flood, but SIGTERM makes it exit with status 0.
//	sigcount   counts the SIGINT, SIGTERM, SIGHUP and SIGQUIT it gets: prints
//	           "ready", and 300 ms after the first signal prints the count
//	           and exits 0 (1 when none comes within wait).
func TestProxyHelperProcess(t *testing.T) {
	mode := os.Getenv(helperEnv)
	if mode == "" {
		t.Skip("run by the proxy tests as a stdio server")
	}
	code, _ := strconv.Atoi(os.Getenv("RPCID_PROXY_HELPER_EXIT"))
	switch mode {
	case "stringify":
		fmt.Fprintln(os.Stderr, "helper: standard error passes through")
		stringifyServer(os.Stdin, os.Stdout)
	case "lsp":
		lspServer(os.Stdin, os.Stdout)
	case "echo":
		echoServer(os.Stdin, os.Stdout, os.Stderr)
	case "nonl":
		br := bufio.NewReader(os.Stdin)
		br.ReadString('\n')
		os.Stdout.WriteString(`{"jsonrpc":"2.0","id":"1","result":{}}`)
		io.Copy(io.Discard, br)
	case "exit":
	case "kill":
		p, _ := os.FindProcess(os.Getpid())
		p.Kill()
		time.Sleep(wait)
	case "burst", "burstpid":
		w := bufio.NewWriter(os.Stdout)
		if mode == "burstpid" {
			fmt.Fprintln(w, os.Getpid())
		}
		for i := 0; i < burstLines; i++ {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"notifications/message","params":{"n":%d}}`+"\n", i)
		}
		w.Flush()
	case "deaf":
		signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
		fmt.Println(os.Getpid())
		time.Sleep(3 * wait)
		code = 1
	case "sigcount":
		c := make(chan os.Signal, 16)
		signal.Notify(c, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
		fmt.Println("ready")
		select {
		case <-c:
		case <-time.After(wait):
			os.Exit(1)
		}
		n := 1
		for end := time.After(300 * time.Millisecond); ; n++ {
			select {
			case <-c:
				continue
			case <-end:
			}
			break
		}
		fmt.Println(n)
	case "flood", "flood-nosigpipe", "floodterm":
		switch mode {
		case "flood-nosigpipe":
			signal.Ignore(syscall.SIGPIPE)
		case "floodterm":
			c := make(chan os.Signal, 1)
			signal.Notify(c, syscall.SIGTERM)
			go func() {
				<-c
				os.Exit(0)
			}()
		}
		fmt.Println(os.Getpid())
		line := []byte(`{"jsonrpc":"2.0","method":"n"}` + "\n")
		deadline := time.Now().Add(3 * wait)
		for time.Now().Before(deadline) {
			if _, err := os.Stdout.Write(line); err != nil {
				break
			}
		}
		if mode != "flood-nosigpipe" || time.Now().After(deadline) {
			os.Exit(1)
		}
		end := make(chan struct{})
		go func() {
			io.Copy(io.Discard, os.Stdin)
			close(end)
		}()
		select {
		case <-end:
		case <-time.After(3 * wait):
			code = 1
		}
	case "closein":
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM)
		os.Stdin.Close()
		fmt.Println("ready")
		select {
		case <-c:
		case <-time.After(wait):
			code = 1
		}
	case "trap":
		c := make(chan os.Signal, 1)
		signal.Notify(c, syscall.SIGTERM)
		fmt.Println("ready")
		select {
		case <-c:
			code = 42
		case <-time.After(wait):
			code = 1
		}
	}
	os.Exit(code)
}

// stringifyServer is the stringify mode of TestProxyHelperProcess.
func stringifyServer(r io.Reader, w io.Writer) {
	br := bufio.NewReaderSize(r, 1<<10) // lines longer than this arrive in parts
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(line, &m) == nil && m.ID != nil && m.Method != "" {
				id := string(m.ID)
				if id[0] != '"' {
					id = `"` + id + `"`
				}
				result := "{}"
				switch m.Method {
				case "ghost":
					id = `"999"`
				case "long":
					result = `{"pad":"` + strings.Repeat("x", 1<<20) + `"}`
				case "len":
					result = `{"len":` + strconv.Itoa(len(line)) + `}`
				}
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
			}
		}
		if err != nil {
			return
		}
	}
}

// lspServer is the lsp mode of TestProxyHelperProcess.
func lspServer(r io.Reader, w io.Writer) {
	br := bufio.NewReader(r)
	for {
		n := -1
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			if line == "" {
				break
			}
			if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, "Content-Length") {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if n < 0 {
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &m) != nil || m.ID == nil {
			continue
		}
		id := string(m.ID)
		if id[0] != '"' {
			id = `"` + id + `"`
		}
		resp := `{"jsonrpc":"2.0","id":` + id + `,"result":{}}`
		if m.Method == "nl" {
			resp += "\n"
		}
		fmt.Fprintf(w, "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(resp), resp)
	}
}

// runProxyArgs runs "rpcid proxy args..." in this process with stdin and
// returns its exit status, stdout and stderr, failing the test if it does
// not end within the bounded wait.
func runProxyArgs(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(args, strings.NewReader(stdin), &stdout, &stderr)
	}()
	select {
	case code := <-done:
		return code, stdout.String(), stderr.String()
	case <-time.After(wait):
		t.Fatalf("rpcid proxy %q did not end within %v", args, wait)
	}
	return 0, "", ""
}

func TestProxyStdioRestores(t *testing.T) {
	cmd := helperCommand(t, "stringify")
	t.Setenv("RPCID_PROXY_HELPER_EXIT", "5")
	in := `{"jsonrpc":"2.0","id":3,"method":"ping"}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":"a","method":"ping"}
{"jsonrpc":"2.0","id":0,"method":"ping"}
[{"jsonrpc":"2.0","id":5,"method":"ping"},{"jsonrpc":"2.0","id":6,"method":"ping"}]
{"jsonrpc":"2.0","id":10,"method":"ghost"}
{"jsonrpc":"2.0","id":1.0,"method":"ping"}
`
	// This server does not answer batches (TestProxyStdioBatchResponse
	// has one that does).
	want := `{"jsonrpc":"2.0","id":3,"result":{}}
{"jsonrpc":"2.0","id":"a","result":{}}
{"jsonrpc":"2.0","id":0,"result":{}}
{"jsonrpc":"2.0","id":"999","result":{}}
{"jsonrpc":"2.0","id":"1.0","result":{}}
`
	code, stdout, stderr := runProxyArgs(t, in, append([]string{"-v", "--"}, cmd...)...)
	if code != 5 {
		t.Errorf("exit status %d, want 5 (the command's); stderr:\n%s", code, stderr)
	}
	if diff := cmp.Diff(want, stdout); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	for _, s := range []string{
		"helper: standard error passes through\n",
		"rpcid proxy: restored response id \"3\" to 3\n",
		"rpcid proxy: restored response id \"0\" to 0\n",
		"rpcid proxy: response id \"999\" matches no remembered request id\n",
		"rpcid proxy: 12 lines (7 from the client, 5 from the command); 2 ids restored, 2 unmatched\n",
	} {
		if !strings.Contains(stderr, s) {
			t.Errorf("stderr does not contain %q:\n%s", s, stderr)
		}
	}
	// "1.0" is a string that the rule does not equate with the number 1.0,
	// so it is left as received, and matches nothing.
	if strings.Contains(stderr, `"1.0" to`) {
		t.Errorf("stderr reports restoring \"1.0\":\n%s", stderr)
	}
}

// The batch case: a server that answers a batch with a batch.
func TestProxyStdioBatchResponse(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh")
	}
	// sh answers the first line with a batch response whose ids are strings.
	script := `read line; printf '%s\n' '[{"jsonrpc":"2.0","id":"5","result":1},{"jsonrpc":"2.0","id":"6","error":{"code":-1,"message":"m"}}]'`
	in := `[{"jsonrpc":"2.0","id":5,"method":"a"},{"jsonrpc":"2.0","id":6,"method":"b"}]` + "\n"
	code, stdout, stderr := runProxyArgs(t, in, "--", "sh", "-c", script)
	want := `[{"jsonrpc":"2.0","id":5,"result":1},{"jsonrpc":"2.0","id":6,"error":{"code":-1,"message":"m"}}]` + "\n"
	if code != 0 || stdout != want {
		t.Errorf("exit status %d, stdout\n%s\nwant 0 and\n%s\nstderr: %s", code, stdout, want, stderr)
	}
	if stderr != "" {
		t.Errorf("without -v, stderr = %q, want nothing", stderr)
	}
}

// Through the proxy, both ways: a request after a UTF-8 byte order mark is
// recorded and its response, after one too, restored; a server's log line
// that names Content-Length after other text does not keep the response
// after it from being restored. The marks and the log line pass unchanged.
func TestProxyStdioBOMAndLogLines(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh")
	}
	script := `read a; printf '\357\273\277{"jsonrpc":"2.0","id":"0","result":{}}\n'
read b; printf 'DEBUG Content-Length: 38\n{"jsonrpc":"2.0","id":"1","result":{}}\n'`
	in := "\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":0,"method":"initialize"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	code, stdout, stderr := runProxyArgs(t, in, "-v", "--", "sh", "-c", script)
	want := "\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":0,"result":{}}` + "\nDEBUG Content-Length: 38\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	if code != 0 {
		t.Errorf("exit status %d; stderr:\n%s", code, stderr)
	}
	if diff := cmp.Diff(want, stdout); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr, "2 ids restored, 0 unmatched") {
		t.Errorf("stderr does not report 2 ids restored:\n%s", stderr)
	}
}

func TestProxyStdioLongLines(t *testing.T) {
	cmd := helperCommand(t, "stringify")
	long := `{"jsonrpc":"2.0","id":8,"method":"len","params":{"pad":"` + strings.Repeat("y", 5000) + `"}}` + "\n"
	in := `{"jsonrpc":"2.0","id":7,"method":"long"}` + "\n" + long + `{"jsonrpc":"2.0","id":9,"method":"ping"}` + "\n"
	code, stdout, stderr := runProxyArgs(t, in, append([]string{"-v", "-max-message-size", "1024", "--"}, cmd...)...)
	if code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, stderr)
	}
	// Long lines count too; the long request was not recorded,
	// so its answer "8" matches nothing.
	if want := "rpcid proxy: 6 lines (3 from the client, 3 from the command); 1 id restored, 1 unmatched\n"; !strings.HasSuffix(stderr, want) {
		t.Errorf("stderr does not end with %q:\n%s", want, stderr)
	}
	lines := strings.SplitAfter(stdout, "\n")
	if len(lines) != 4 || lines[3] != "" {
		t.Fatalf("stdout has %d parts, want 3 lines: %.200q", len(lines), stdout)
	}
	// The 1 MiB response is longer than -max-message-size: it passes
	// unchanged, its id unrestored.
	wantLong := `{"jsonrpc":"2.0","id":"7","result":{"pad":"` + strings.Repeat("x", 1<<20) + `"}}` + "\n"
	if lines[0] != wantLong {
		t.Errorf("long response changed: %.100q... (%d bytes), want %d bytes", lines[0], len(lines[0]), len(wantLong))
	}
	// The long request reached the server byte for byte (its length), and
	// was not recorded, so its answer is not restored either.
	if want := `{"jsonrpc":"2.0","id":"8","result":{"len":` + strconv.Itoa(len(long)) + "}}\n"; lines[1] != want {
		t.Errorf("answer to the long request = %q, want %q", lines[1], want)
	}
	if want := `{"jsonrpc":"2.0","id":9,"result":{}}` + "\n"; lines[2] != want {
		t.Errorf("after the long lines = %q, want %q", lines[2], want)
	}
}

func TestProxyStdioExitStatus(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	tests := []struct {
		mode string
		exit string
		want int
	}{
		{"exit", "0", 0},
		{"exit", "3", 3},
		{"kill", "", 128 + int(syscall.SIGKILL)},
	}
	for _, tt := range tests {
		cmd := helperCommand(t, tt.mode)
		t.Setenv("RPCID_PROXY_HELPER_EXIT", tt.exit)
		code, _, stderr := runProxyArgs(t, "", append([]string{"--"}, cmd...)...)
		if code != tt.want {
			t.Errorf("%s %s: exit status %d, want %d; stderr:\n%s", tt.mode, tt.exit, code, tt.want, stderr)
		}
	}
	code, _, stderr := runProxyArgs(t, "", "--", "rpcid-proxy-test-no-such-command")
	if code != 127 || !strings.Contains(stderr, "rpcid-proxy-test-no-such-command") {
		t.Errorf("missing command: exit status %d, stderr %q; want 127 and the name", code, stderr)
	}
}

// A signal to the proxy reaches the command, and the proxy exits with the
// command's status; the client has not closed its end.
func TestProxyStdioSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	var stderr bytes.Buffer
	_, _, sig, done := startReadyProxy(t, "trap", &stderr)
	sig <- syscall.SIGTERM
	select {
	case code := <-done:
		if code != 42 {
			t.Errorf("exit status %d, want 42 (the command's after SIGTERM); stderr:\n%s", code, stderr.String())
		}
	case <-time.After(wait):
		t.Fatal("proxy did not end after SIGTERM")
	}
}

// Requests the server sends are never changed, and with -max-pending full
// the oldest unanswered id is forgotten to make room for new ones.
func TestProxyStdioServerRequestsAndLimit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh")
	}
	// sh reads the client's three requests, then sends its own request with
	// id "3", then answers 1 and 3 with string ids.
	script := `read a; read b; read c
printf '%s\n' '{"jsonrpc":"2.0","id":"3","method":"sampling/createMessage"}' '{"jsonrpc":"2.0","id":"1","result":{}}' '{"jsonrpc":"2.0","id":"3","result":{}}'`
	in := `{"jsonrpc":"2.0","id":1,"method":"a"}
{"jsonrpc":"2.0","id":2,"method":"b"}
{"jsonrpc":"2.0","id":3,"method":"c"}
`
	code, stdout, stderr := runProxyArgs(t, in, "-v", "-max-pending", "2", "--", "sh", "-c", script)
	want := `{"jsonrpc":"2.0","id":"3","method":"sampling/createMessage"}
{"jsonrpc":"2.0","id":"1","result":{}}
{"jsonrpc":"2.0","id":3,"result":{}}
`
	if code != 0 {
		t.Errorf("exit status %d; stderr:\n%s", code, stderr)
	}
	if diff := cmp.Diff(want, stdout); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}
	if !strings.Contains(stderr, `response id "1" matches no remembered request id`) {
		t.Errorf("stderr does not report the forgotten id 1:\n%s", stderr)
	}
}

func TestLineCounter(t *testing.T) {
	tests := []struct {
		in   string
		want int64
	}{
		{"", 0},
		{"\n\r\n\n", 0},
		{"a\n", 1},
		{"a", 1},
		{"a\r\nb\r\n\r\nc", 3},
		{strings.Repeat("x", 100) + "\n" + strings.Repeat("y", 100), 2},
	}
	for _, tt := range tests {
		for _, chunk := range []int{1, 3, 1 << 10} {
			c := &lineCounter{r: &chunkReader{s: tt.in, n: chunk}}
			io.Copy(io.Discard, c)
			if got := c.lines(); got != tt.want {
				t.Errorf("%q in %d-byte reads: %d lines, want %d", tt.in, chunk, got, tt.want)
			}
		}
	}
}

// startReadyProxy runs proxyStdio in this process on helper mode mode
// (one that prints "ready" first), with stderr, and waits for that line; the
// rest of the command's output is discarded. It returns the client's end of
// the proxy's standard input (closed when the test ends), the signal channel
// and the channel the exit status arrives on.
func startReadyProxy(t *testing.T, mode string, stderr io.Writer) (stdinR *io.PipeReader, stdinW *io.PipeWriter, sig chan os.Signal, done chan int) {
	t.Helper()
	cmd := helperCommand(t, mode)
	stdinR, stdinW = io.Pipe()
	t.Cleanup(func() { stdinW.Close() })
	stdoutR, stdoutW := io.Pipe()
	sig = make(chan os.Signal, 1)
	done = make(chan int, 1)
	go func() {
		done <- proxyStdio(proxyConfig{command: cmd, maxPending: 16, maxMessageSize: 1 << 10}, stdinR, stdoutW, stderr, sig)
	}()
	ready := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdoutR).ReadString('\n')
		ready <- line
		io.Copy(io.Discard, stdoutR)
	}()
	select {
	case line := <-ready:
		if line != "ready\n" {
			t.Fatalf("command printed %q, want %q", line, "ready\n")
		}
	case <-time.After(wait):
		t.Fatal("command did not start")
	}
	return stdinR, stdinW, sig, done
}

// burstLines is how many lines the burst helper writes: about 56 KB, which
// a pipe holds, so that the command exits before the client reads any.
const burstLines = 800

// A client that reads slowly gets all of what COMMAND wrote before it
// exited, however long after: the wait for processes holding COMMAND's
// output counts only while the proxy waits for data (it used to close the
// pipe 2 s after COMMAND exited, cutting a line in half, with status 0).
func TestProxyStdioSlowClient(t *testing.T) {
	old := stdioWaitDelay
	stdioWaitDelay = 100 * time.Millisecond
	defer func() { stdioWaitDelay = old }()
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- proxyStdio(proxyConfig{command: helperCommand(t, "burst"), maxPending: 16, maxMessageSize: 1 << 10}, stdinR, outW, io.Discard, make(chan os.Signal))
		outW.Close()
	}()
	time.Sleep(10 * stdioWaitDelay) // the command has long exited
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(outR)
		got <- b
	}()
	select {
	case b := <-got:
		if n := bytes.Count(b, []byte("\n")); n != burstLines || !bytes.HasSuffix(b, []byte("}}\n")) {
			t.Errorf("the client read %d bytes, %d lines; want %d whole lines", len(b), n, burstLines)
		}
	case <-time.After(wait):
		t.Fatal("the proxy did not end")
	}
	if code := <-done; code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
}

// A process COMMAND started that holds its standard output open does not
// keep the proxy waiting once COMMAND has exited and nothing more comes for
// stdioWaitDelay; what COMMAND wrote is relayed.
func TestProxyStdioOutputHeldOpen(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh, and pipes there take no deadline")
	}
	old := stdioWaitDelay
	stdioWaitDelay = 100 * time.Millisecond
	defer func() { stdioWaitDelay = old }()
	cmd := []string{"sh", "-c", `read request; sleep 5 & echo '{"jsonrpc":"2.0","id":"1","result":{}}'`}
	start := time.Now()
	code, stdout, stderr := runProxyArgs(t, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n", append([]string{"-v", "--"}, cmd...)...)
	if code != 0 || stdout != `{"jsonrpc":"2.0","id":1,"result":{}}`+"\n" || !strings.Contains(stderr, "a process it started holds it open") {
		t.Errorf("exit status %d, stdout %q, stderr %q; want 0, the restored response, and the note", code, stdout, stderr)
	}
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("the proxy took %v, waiting for the process holding the output", d)
	}
}

// Output that could not be delivered makes the exit status 1 when COMMAND's
// is 0: a script must not see success when the response was lost (without
// the proxy, the command's own write would have failed).
func TestProxyStdioUndelivered(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh")
	}
	enospc := &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
	var stderr syncBuffer
	done := make(chan int, 1)
	cfg := proxyConfig{command: []string{"sh", "-c", `echo '{"jsonrpc":"2.0","id":1,"result":1}'`}, maxPending: 16, maxMessageSize: 1 << 10}
	go func() {
		done <- proxyStdio(cfg, strings.NewReader(""), failingWriter{enospc}, &stderr, make(chan os.Signal))
	}()
	select {
	case code := <-done:
		if code != 1 || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("exit status %d, stderr %q; want 1 and the error", code, stderr.String())
		}
	case <-time.After(wait):
		t.Fatal("the proxy did not end")
	}
}

// startUnread runs proxyStdio in this process on helper mode mode, one
// that prints its process id first, with a client that reads that line and
// nothing more, and waits for its output to back up; it returns the
// command's process id, the signal channel and
// the channel the exit status arrives on. The client's pipe is closed when
// the test ends, which ends a relay still blocked on it.
func startUnread(t *testing.T, mode string, stderr io.Writer) (pid int, sig chan os.Signal, done chan int) {
	t.Helper()
	cmd := helperCommand(t, mode)
	stdinR, stdinW := io.Pipe()
	t.Cleanup(func() { stdinW.Close() })
	stdoutR, stdoutW := io.Pipe()
	t.Cleanup(func() { stdoutR.Close() })
	sig = make(chan os.Signal, 1)
	done = make(chan int, 1)
	go func() {
		done <- proxyStdio(proxyConfig{command: cmd, maxPending: 16, maxMessageSize: 1 << 10, verbose: true}, stdinR, stdoutW, stderr, sig)
	}()
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(stdoutR).ReadString('\n')
		line <- strings.TrimSpace(l)
	}()
	select {
	case l := <-line:
		var err error
		if pid, err = strconv.Atoi(l); err != nil {
			t.Fatalf("the command printed %q, want its process id", l)
		}
	case <-time.After(wait):
		t.Fatal("the command printed nothing")
	}
	// Time for the command to fill its pipe and the proxy to block on the
	// client (a flood writes 64 KiB in far less), so that output waits
	// when the command ends: else what it wrote may all fit in the one read
	// the client made, and the relay end with it.
	time.Sleep(200 * time.Millisecond)
	return pid, sig, done
}

// A signal ends the relay once the command has exited, though a client
// that stopped reading holds output the command wrote: the proxy used to
// stay until that output was read, through any number of signals, so a host
// that cancels its reader before it sends SIGTERM (the Python SDK) waited
// for its SIGKILL. The exit status is the command's, 1 for its 0, since its
// output was not all delivered.
//
// With RPCID_LONG=1 it also checks a command that exits 0 on the signal
// and a signal after the command exited, which wait out the signal grace.
func TestProxyStdioSignalEndsRelay(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	endsWith := func(t *testing.T, done chan int, want int, stderr *syncBuffer) {
		t.Helper()
		select {
		case code := <-done:
			if code != want {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, want, stderr.String())
			}
		case <-time.After(wait):
			t.Fatalf("the proxy did not end within %v of the signal while its client did not read", wait)
		}
	}
	t.Run("signal kills the command", func(t *testing.T) {
		var stderr syncBuffer
		_, sig, done := startUnread(t, "flood", &stderr)
		sig <- syscall.SIGTERM // passed on: SIGTERM ends the command
		endsWith(t, done, 128+int(syscall.SIGTERM), &stderr)
	})
	t.Run("command exits 0 on the signal", func(t *testing.T) {
		if !testenv.Long() {
			t.Skip("timing-bound (the signal grace): runs with RPCID_LONG=1")
		}
		var stderr syncBuffer
		_, sig, done := startUnread(t, "floodterm", &stderr)
		sig <- syscall.SIGTERM
		endsWith(t, done, 1, &stderr)
	})
	t.Run("signal after the command exited", func(t *testing.T) {
		if !testenv.Long() {
			t.Skip("timing-bound (the signal grace): runs with RPCID_LONG=1")
		}
		if runtime.GOOS != "linux" {
			t.Skip("uses /proc")
		}
		var stderr syncBuffer
		pid, sig, done := startUnread(t, "burstpid", &stderr)
		for deadline := time.Now().Add(wait); alive(pid); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the command did not exit")
			}
		}
		select {
		case code := <-done:
			t.Fatalf("the proxy ended (%d) before its output was read", code)
		case <-time.After(100 * time.Millisecond):
		}
		sig <- syscall.SIGTERM
		endsWith(t, done, 1, &stderr)
		if !strings.Contains(stderr.String(), "stopped relaying the command's output after a signal") {
			t.Errorf("-v does not say why the output was cut:\n%s", stderr.String())
		}
	})
	t.Run("second signal", func(t *testing.T) {
		if runtime.GOOS != "linux" {
			t.Skip("uses /proc")
		}
		old := stdioSignalGrace
		stdioSignalGrace = time.Hour
		defer func() { stdioSignalGrace = old }()
		var stderr syncBuffer
		pid, sig, done := startUnread(t, "flood", &stderr)
		sig <- syscall.SIGTERM
		for deadline := time.Now().Add(wait); alive(pid); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the command did not end after SIGTERM")
			}
		}
		select {
		case code := <-done:
			t.Fatalf("the proxy ended (%d) before the grace period or a second signal; stderr:\n%s", code, stderr.String())
		case <-time.After(100 * time.Millisecond):
		}
		sig <- syscall.SIGINT
		endsWith(t, done, 128+int(syscall.SIGTERM), &stderr)
	})
}

// TestProxyAmbiguous checks that stdio mode's -v names a response id it
// leaves alone because requests with Equal ids were sent in two spellings.
func TestProxyAmbiguous(t *testing.T) {
	in := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n{\"jsonrpc\":\"2.0\",\"id\":1.0,\"method\":\"b\"}\n"
	code, out, errOut := runProxyArgs(t, in, "-v", "--", "sh", "-c", `read a; read b; echo '{"jsonrpc":"2.0","id":"1","result":{}}'`)
	if code != 0 || out != "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}\n" ||
		!strings.Contains(errOut, `rpcid proxy: response id "1" matches request ids sent in different spellings: not restored`) ||
		!strings.Contains(errOut, "0 ids restored, 0 unmatched, 1 ambiguous\n") {
		t.Errorf("proxy = %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestEscapeUnsafeFormatCharacters checks that format characters that hide
// text are escaped in the proxy's log lines (check and key:
// TestFormatCharactersEscaped in package main).
func TestEscapeUnsafeFormatCharacters(t *testing.T) {
	for _, r := range []rune{0x00ad, 0x200b, 0x202e, 0xfeff} {
		if escapeUnsafe(string(r)) == string(r) {
			t.Errorf("U+%04X is not escaped in the proxy's log lines", r)
		}
	}
}

// The stdio summary counts lines, not messages: a line of binary garbage or
// plain text is no JSON-RPC message, and the proxy does not parse lines it
// passes unexamined.
func TestProxyStdioSummaryCountsLines(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh")
	}
	in := "\x00\xff\x1b[2J not json\n" + `{"jsonrpc":"2.0","id":1,"method":"m"}` + "\n"
	code, _, stderr := runProxyArgs(t, in, "-v", "--", "sh", "-c", `cat >/dev/null; echo 'plain text'`)
	if code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, stderr)
	}
	if w := "rpcid proxy: 3 lines (2 from the client, 1 from the command); 0 ids restored, 0 unmatched\n"; !strings.HasSuffix(stderr, w) {
		t.Errorf("stderr ends %q, want %q", stderr, w)
	}
}

// When the client closes its end of the proxy's standard output, COMMAND
// sees what it would see without the proxy: its own standard output closed
// for reading, so that its next write fails, and the end of its input. The
// proxy reads and discards nothing, so a command that writes forever and
// never reads its input (whose input is not closed here) is not kept alive.
// The proxy is not killed by SIGPIPE, which Go's runtime raises for a write
// to a broken pipe on standard output: it waits for COMMAND, logs why it
// stopped and its summary (-v) and exits with COMMAND's status.
func TestProxyStdioClientClosesOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS == "windows" {
		t.Skip("uses SIGPIPE")
	}
	bin := buildRpcid(t)
	tests := []struct {
		mode string
		want int
	}{
		{"flood", 128 + int(syscall.SIGPIPE)}, // ended by SIGPIPE on its next write
		{"flood-nosigpipe", 7},                // its write failed and its input ended
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			t.Setenv("RPCID_PROXY_HELPER_EXIT", "7")
			cmd := exec.Command(bin, append([]string{"proxy", "-v", "--"}, helperCommand(t, tt.mode)...)...)
			var stderr syncBuffer
			cmd.Stderr = &stderr
			stdout := startPiped(t, cmd) // its standard input kept open: the client does not close its end
			line, err := bufio.NewReader(stdout).ReadString('\n')
			pid, perr := strconv.Atoi(strings.TrimSpace(line))
			if err != nil || perr != nil {
				t.Fatalf("first line %q, %v: want the command's process id", line, err)
			}
			stdout.Close()
			err = waitBounded(t, cmd)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || exitStatus(ee.ProcessState) != tt.want {
				t.Errorf("proxy ended with %v, want exit status %d (COMMAND's); stderr:\n%s", err, tt.want, stderr.String())
			}
			got := stderr.String()
			if w := "rpcid proxy: standard output closed: write /dev/stdout: broken pipe; closing the command's standard output and input\n"; !strings.HasPrefix(got, w) {
				t.Errorf("stderr %q, want it to start %q", got, w)
			}
			if !regexp.MustCompile(`\nrpcid proxy: [0-9]+ lines \(0 from the client, [0-9]+ from the command\); 0 ids restored, 0 unmatched\n$`).MatchString(got) {
				t.Errorf("stderr %q, want it to end with the summary", got)
			}
			if runtime.GOOS != "linux" {
				t.Skip("the command's end was seen by the proxy's exit only: alive reads /proc, which is Linux's")
			}
			if alive(pid) {
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill()
				}
				t.Errorf("the command (process %d) still runs after the proxy exited", pid)
			}
		})
	}
}

// When a write to standard output fails, the command's standard output and
// input are closed, whatever the error; a broken pipe (the client went away)
// is logged with -v only, another error always.
func TestProxyStdioOutputFails(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses SIGPIPE")
	}
	epipe := &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}
	enospc := &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
	tests := []struct {
		err     error
		verbose bool
		want    string // stderr before the summary
	}{
		{epipe, true, "rpcid proxy: standard output closed: write /dev/stdout: broken pipe; closing the command's standard output and input\n"},
		{epipe, false, ""},
		{enospc, false, "rpcid proxy: cannot write to standard output: write /dev/stdout: no space left on device; closing the command's standard output and input\n"},
	}
	summary := regexp.MustCompile(`rpcid proxy: [0-9]+ lines? \(0 from the client, [0-9]+ from the command\); 0 ids restored, 0 unmatched\n$`)
	for _, tt := range tests {
		cmd := helperCommand(t, "flood")
		stdinR, stdinW := io.Pipe() // kept open: the client does not close its end
		var stderr bytes.Buffer
		done := make(chan int, 1)
		go func() {
			cfg := proxyConfig{command: cmd, verbose: tt.verbose, maxPending: 16, maxMessageSize: 1 << 10}
			done <- proxyStdio(cfg, stdinR, failingWriter{tt.err}, &stderr, make(chan os.Signal))
		}()
		select {
		case code := <-done:
			if want := 128 + int(syscall.SIGPIPE); code != want {
				t.Errorf("%v, -v %v: exit status %d, want %d (SIGPIPE ended the command)", tt.err, tt.verbose, code, want)
			}
			got := stderr.String()
			if tt.verbose {
				got = summary.ReplaceAllString(got, "")
			}
			if got != tt.want {
				t.Errorf("%v, -v %v: stderr %q, want %q (and the summary with -v)", tt.err, tt.verbose, stderr.String(), tt.want)
			}
		case <-time.After(wait):
			t.Fatalf("%v: the proxy did not end within %v after its output failed", tt.err, wait)
		}
		stdinW.Close()
	}
}

// When COMMAND closes its standard input and lives on, the client's next
// write fails as it would without the proxy, instead of blocking once the
// pipe to the proxy is full.
func TestProxyStdioCommandClosesInput(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	stdinR, stdinW, sig, done := startReadyProxy(t, "closein", io.Discard)
	wrote := make(chan error, 1)
	go func() {
		line := []byte(`{"jsonrpc":"2.0","method":"n"}` + "\n")
		for {
			if _, err := stdinW.Write(line); err != nil {
				wrote <- err
				return
			}
		}
	}()
	select {
	case err := <-wrote:
		if !errors.Is(err, io.ErrClosedPipe) {
			t.Errorf("the client's write failed with %v, want %v (the proxy closed its standard input)", err, io.ErrClosedPipe)
		}
	case <-time.After(wait):
		stdinR.Close()
		t.Errorf("the client's writes did not fail within %v after the command closed its input", wait)
	}
	sig <- syscall.SIGTERM
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit status %d, want 0 (the command's after SIGTERM)", code)
		}
	case <-time.After(wait):
		t.Fatal("proxy did not end after SIGTERM")
	}
}
