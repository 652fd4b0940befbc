package proxy

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcid/rpcid/internal/testenv"
)

// The tests in this file run the built rpcid proxy as a separate process
// under hostile load and measure its memory: the peak resident set size
// (VmHWM in /proc/PID/status), so that a burst between two samples is not
// missed. They are long (RPCID_LONG=1) and need Linux.

// peakRSS returns the peak resident set size of process pid in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("VmHWM %q: %v", v, err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/PID/status")
	return 0
}

// startLoadProxy starts the built binary in HTTP mode in front of a
// gateway that reads each request to its end and answers with a small
// JSON-RPC response, and returns the proxy's address and process.
func startLoadProxy(t *testing.T, flags ...string) (string, *exec.Cmd) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	testenv.SkipUnlessLong(t)
	bin := buildRpcid(t)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"1","result":{}}`)
	}))
	t.Cleanup(up.Close)
	cmd := exec.Command(bin, append(append([]string{"proxy", "-listen", "127.0.0.1:0"}, flags...), up.URL+"/mcp")...)
	addr, lines := startBinary(t, cmd)
	go func() {
		for range lines {
		}
	}()
	return addr, cmd
}

// declaredHead is the head of a POST declaring n bytes of JSON body.
func declaredHead(addr string, n int) string {
	return fmt.Sprintf("POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, n)
}

// TestProxyDeclaredLengthWaves sends 4 waves of 100 connections, each
// declaring a body just under the 16 MiB message limit and sending its
// first byte only: memory must follow the bytes received, not the lengths
// declared.
func TestProxyDeclaredLengthWaves(t *testing.T) {
	addr, cmd := startLoadProxy(t)
	const limit = 200 << 20
	for wave := range 4 {
		var conns []net.Conn
		for range 100 {
			c, err := net.DialTimeout("tcp", addr, wait)
			if err != nil {
				t.Fatal(err)
			}
			conns = append(conns, c)
			c.SetWriteDeadline(time.Now().Add(wait))
			if _, err := io.WriteString(c, declaredHead(addr, 16<<20-1)+"{"); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(500 * time.Millisecond) // the proxy reads the heads and the bytes
		rss := peakRSS(t, cmd.Process.Pid)
		t.Logf("wave %d: peak RSS %d MB", wave+1, rss>>20)
		if rss > limit {
			t.Errorf("wave %d: peak RSS %d MB, want under %d MB", wave+1, rss>>20, limit>>20)
		}
		for _, c := range conns {
			c.Close()
		}
	}
}

// TestProxyStalledUploads has 64 clients each send 16 MiB - 1 bytes of a
// JSON body and stall: of a 16 MiB body (the last byte never comes), or of a
// body of that length (complete; the client then reads nothing). The
// buffer budget holds the memory the proxy spends on them, and the requests
// beyond it are answered 503.
func TestProxyStalledUploads(t *testing.T) {
	for _, declared := range []int{16 << 20, 16<<20 - 1} {
		t.Run(fmt.Sprint(declared), func(t *testing.T) {
			addr, cmd := startLoadProxy(t)
			stalledUploads(t, addr, cmd.Process.Pid, declared)
		})
	}
}

func stalledUploads(t *testing.T, addr string, pid, declared int) {
	const limit = 400 << 20
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = ' '
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	statuses := map[string]int{}
	var conns []net.Conn
	for range 64 {
		c, err := net.DialTimeout("tcp", addr, wait)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetDeadline(time.Now().Add(wait))
			status := "stalled"
			if _, err := io.WriteString(c, declaredHead(addr, declared)); err == nil {
				for left := 16<<20 - 1; left > 0; {
					n := min(left, len(chunk))
					if _, err := c.Write(chunk[:n]); err != nil {
						status = "write failed"
						break
					}
					left -= n
				}
			}
			// A refused request is answered at once; a held one is
			// not, until the deadline below.
			c.SetReadDeadline(time.Now().Add(2 * time.Second))
			if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
				status = resp.Status
			}
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	rss := peakRSS(t, pid)
	t.Logf("declared %d: peak RSS %d MB; %v", declared, rss>>20, statuses)
	if rss > limit {
		t.Errorf("peak RSS %d MB, want under %d MB", rss>>20, limit>>20)
	}
	for _, c := range conns {
		c.Close()
	}
}

// TestProxyIdleBody sends the head of a POST and one byte of its body, then
// nothing: the proxy closes the connection once -body-timeout has passed
// without a body byte, answering 408.
func TestProxyIdleBody(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
	}))
	defer up.Close()
	for _, ct := range []string{"application/json", "text/plain"} {
		t.Run(ct, func(t *testing.T) {
			p := startProxy(t, up.URL, "-body-timeout", "300ms")
			c, err := net.DialTimeout("tcp", p.addr, wait)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			start := time.Now()
			c.SetDeadline(start.Add(wait))
			head := strings.Replace(declaredHead(p.addr, 100), "application/json", ct, 1)
			if _, err := io.WriteString(c, head+"{"); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatalf("no response within %v: %v", wait, err)
			}
			io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != http.StatusRequestTimeout {
				t.Errorf("status %d, want 408", resp.StatusCode)
			}
			if _, err := br.ReadByte(); err != io.EOF {
				t.Errorf("after the response: %v, want the connection closed (EOF)", err)
			}
			if d := time.Since(start); d < 300*time.Millisecond || d > wait/2 {
				t.Errorf("closed after %v, want about 300ms", d)
			}
		})
	}
}

// TestProxyNoCutResponses sends 300 requests of each kind whose body the
// proxy passes on unbuffered to a gateway that answers before it has read
// the body: every response must arrive whole. Without full duplex, net/http
// stops reading such a body once the response starts and cuts the
// response.
func TestProxyNoCutResponses(t *testing.T) {
	answer := strings.Repeat("x", 256<<10)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The answer first, then the body, as a server does that answers
		// at once (an error, a stream of its own): in full duplex, so that
		// the gateway itself cuts nothing.
		http.NewResponseController(w).EnableFullDuplex()
		io.CopyN(io.Discard, r.Body, 1<<10)
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, answer)
		w.(http.Flusher).Flush()
		io.Copy(io.Discard, r.Body)
	}))
	defer up.Close()
	p := startProxy(t, up.URL, "-max-message-size", "4096")
	var gz strings.Builder
	zw := gzip.NewWriter(&gz)
	for gz.Len() < 4<<20 {
		fmt.Fprintf(zw, `{"jsonrpc":"2.0","id":%d,"method":"m","params":"%x"}`, gz.Len(), rand.Int64())
		zw.Flush()
	}
	zw.Close()
	big := `{"jsonrpc":"2.0","id":1,"method":"m","params":"` + strings.Repeat("y", 4<<20) + `"}`
	kinds := []struct {
		name, method, contentType, encoding, body string
	}{
		{"text/plain", "POST", "text/plain", "", strings.Repeat("z", 4<<20)},
		{"gzip JSON", "POST", "application/json", "gzip", gz.String()},
		{"PUT", "PUT", "application/json", "", big},
		{"JSON above -max-message-size", "POST", "application/json", "", big},
	}
	n := 300
	if !testenv.Long() {
		n = 10
	}
	client := &http.Client{Timeout: wait, Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	defer client.CloseIdleConnections()
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			var cut, failed int
			var wg sync.WaitGroup
			var mu sync.Mutex
			sem := make(chan struct{}, 8)
			for range n {
				wg.Add(1)
				sem <- struct{}{}
				go func() {
					defer func() { <-sem; wg.Done() }()
					req, _ := http.NewRequest(k.method, p.url+"/mcp", strings.NewReader(k.body))
					req.Header.Set("Content-Type", k.contentType)
					if k.encoding != "" {
						req.Header.Set("Content-Encoding", k.encoding)
					}
					resp, err := client.Do(req)
					if err != nil {
						mu.Lock()
						if failed == 0 {
							t.Logf("first failure: %v", err)
						}
						failed++
						mu.Unlock()
						return
					}
					b, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					if err != nil || string(b) != answer {
						mu.Lock()
						if cut == 0 {
							t.Logf("first cut: %d bytes, %v", len(b), err)
						}
						cut++
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			if cut+failed > 0 {
				t.Errorf("%d of %d responses cut, %d requests failed", cut, n, failed)
			}
		})
	}
}

// TestProxyStdioDeclaredLength sends stdio mode a Content-Length header
// declaring just under 16 MiB and one byte of the body: the proxy holds
// what arrived, not what was declared.
func TestProxyStdioDeclaredLength(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	testenv.SkipUnlessLong(t)
	cmd := exec.Command(buildRpcid(t), "proxy", "--", "sh", "-c", "cat >/dev/null")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if _, err := fmt.Fprintf(stdin, "Content-Length: %d\r\n\r\n{", 16<<20-1); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	rss := peakRSS(t, cmd.Process.Pid)
	t.Logf("peak RSS %d MB", rss>>20)
	if rss > 50<<20 {
		t.Errorf("peak RSS %d MB holding 1 byte of a declared 16 MiB body, want under 50 MB", rss>>20)
	}
	stdin.Close()
	waitBounded(t, cmd)
}

// A request whose body does not fit in what -max-buffered leaves is
// answered 503 with the reason, and not sent; one that fits is forwarded.
func TestProxyMaxBuffered(t *testing.T) {
	var got sync.Map
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(len(b), true)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"1","result":{}}`)
	}))
	defer up.Close()
	p := startProxy(t, up.URL, "-max-buffered", "4096")
	small := `{"jsonrpc":"2.0","id":1,"method":"m"}`
	if resp, body := do(t, newRequest(t, "POST", p.url+"/mcp", small)); resp.StatusCode != 200 || body != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Errorf("small request: %d %s", resp.StatusCode, body)
	}
	large := `{"jsonrpc":"2.0","id":1,"method":"m","params":"` + strings.Repeat("x", 8000) + `"}`
	resp, body := do(t, newRequest(t, "POST", p.url+"/mcp", large))
	if want := "rpcid proxy: busy: the bodies held reached -max-buffered (4096 bytes); try again later\n"; resp.StatusCode != http.StatusServiceUnavailable || body != want {
		t.Errorf("large request: %d %q, want 503 %q", resp.StatusCode, body, want)
	}
	if _, sent := got.Load(len(large)); sent {
		t.Error("the refused request reached the upstream")
	}
}

// TestProxyTrickle has 1000 connections each send the head of a POST
// declaring a 16 MiB - 1 body and then a byte of it every 2 seconds, as a
// client may that stays within -body-timeout: they are served as slowly as
// they send, in memory that follows what arrived.
func TestProxyTrickle(t *testing.T) {
	addr, cmd := startLoadProxy(t)
	const conns, limit = 1000, 200 << 20
	var cs []net.Conn
	defer func() {
		for _, c := range cs {
			c.Close()
		}
	}()
	for range conns {
		c, err := net.DialTimeout("tcp", addr, wait)
		if err != nil {
			t.Skipf("dialing connection %d: %v", len(cs)+1, err) // a low file limit
		}
		cs = append(cs, c)
		c.SetWriteDeadline(time.Now().Add(wait))
		if _, err := io.WriteString(c, declaredHead(addr, 16<<20-1)+"{"); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		time.Sleep(2 * time.Second)
		for _, c := range cs {
			c.SetWriteDeadline(time.Now().Add(wait))
			if _, err := io.WriteString(c, " "); err != nil {
				t.Fatalf("a trickling connection was closed: %v", err)
			}
		}
	}
	rss := peakRSS(t, cmd.Process.Pid)
	t.Logf("%d connections trickling: peak RSS %d MB", conns, rss>>20)
	if rss > limit {
		t.Errorf("peak RSS %d MB, want under %d MB", rss>>20, limit>>20)
	}
}
