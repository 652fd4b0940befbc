package interop

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "write ../conformance/BRIDGES.md from what TestBridgeMatrix measures")

// bridgesMD is the file TestBridgeMatrix writes with -update and checks
// otherwise.
var bridgesMD = filepath.Join("..", "conformance", "BRIDGES.md")

// matrixIDs are the ids the raw client sends through each bridge, one
// request each, after MCP's initialize.
var matrixIDs = []string{
	"0", "1", "-1", "42", "9007199254740991", "9007199254740993", "9223372036854775807", "18446744073709551616",
	"1.0", "1.5", "1e2", "-0", "0.1",
	`"abc"`, `"0"`, `"01"`, `"\u0061"`, `"a\/b"`, `"😀"`, `""`, `"` + strings.Repeat("k", 1024) + `"`,
}

// dropWait is how long the client waits for the answer to one request: a
// bridge that drops a request never answers it.
const dropWait = 2500 * time.Millisecond

// A bridgeSpec is one bridge as the matrix runs it.
type bridgeSpec struct {
	name    string // the npm package
	version string // as pinned in bridges/package.json
	how     string // the chain, for BRIDGES.md
	// stdio: the client runs the bridge (and the bridge reaches the raw
	// HTTP server); otherwise the bridge listens on HTTP and runs the raw
	// stdio server.
	stdio bool
	// args returns the bridge's arguments after the node script: upstream
	// is the raw HTTP server's URL (stdio bridges), port the port to
	// listen on and server the raw stdio server's command line (HTTP
	// bridges).
	script string
	args   func(upstream string, port int, server []string) []string
	path   string // the HTTP bridge's endpoint path
}

var bridgeSpecs = []bridgeSpec{
	{
		name: "mcp-remote", version: "0.15.1", stdio: true,
		how:    "stdio client → `mcp-remote URL --allow-http --transport http-only` → raw streamable HTTP server",
		script: "mcp-remote/dist/proxy.js",
		args: func(upstream string, _ int, _ []string) []string {
			return []string{upstream, "--allow-http", "--transport", "http-only"}
		},
	},
	{
		name: "supergateway", version: "4.0.0",
		how:    "HTTP client → `supergateway --stdio SERVER --outputTransport streamableHttp` (stateless) → raw stdio server",
		script: "supergateway/dist/index.js",
		path:   "/mcp",
		args: func(_ string, port int, server []string) []string {
			return []string{"--stdio", strings.Join(server, " "), "--outputTransport", "streamableHttp", "--port", strconv.Itoa(port), "--logLevel", "none"}
		},
	},
	{
		name: "mcp-proxy", version: "6.7.19",
		how:    "HTTP client → `mcp-proxy --server stream --host 127.0.0.1 -- SERVER` → raw stdio server",
		script: "mcp-proxy/dist/bin/mcp-proxy.mjs",
		path:   "/mcp",
		args: func(_ string, port int, server []string) []string {
			return append([]string{"--server", "stream", "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--"}, server...)
		},
	},
}

// The ways the client reaches a bridge: straight, through rpcid proxy, and
// through rpcid proxy -remap.
var chainModes = []string{"bridge alone", "rpcid proxy", "rpcid proxy -remap"}

// bridgesReady returns node's path and the bridges' node_modules directory,
// or skips t with what to do.
func bridgesReady(t *testing.T) (node, modules string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the bridge tests need Node.js 20 or later and `cd interop/bridges && npm ci`")
	}
	modules, _ = filepath.Abs(filepath.Join("bridges", "node_modules"))
	for _, b := range bridgeSpecs {
		if _, err := os.Stat(filepath.Join(modules, b.script)); err != nil {
			t.Skipf("the bridges are not installed (%s is missing): run `cd interop/bridges && npm ci`", b.script)
		}
	}
	return node, modules
}

// A chainResult is what one run of the raw client through one chain saw.
type chainResult struct {
	atServer, atClient []string // per matrixIDs: the id bytes, or "∅", "none", "HTTP 400"
	dupServer          []string // the ids the two duplicates reached the server with
	dupClient          []string // the ids of the answers the client got
	cancelServer       string   // the id the held request reached the server with
	cancelNamed        string   // the requestId of the cancel the server got, or "∅"
	askClient          []string // per s2cIDs: the id the client got, or "∅"
	askServer          []string // per s2cIDs: the id of the answer the server got, or "∅"
	initialized        bool
	stderr             string
}

// TestBridgeMatrix sends the ids of matrixIDs, duplicates, a cancel and
// server requests through three real MCP bridges, pinned in
// bridges/package-lock.json, alone and through rpcid proxy with and
// without -remap; with -remap every id must come back byte for byte and the
// cancel must name the id the server saw. With -update it writes
// ../conformance/BRIDGES.md; otherwise it checks that the file is what it
// measured.
func TestBridgeMatrix(t *testing.T) {
	node, modules := bridgesReady(t)
	loop := filepath.Join(filepath.Dir(modules), "loopback.cjs")
	results := make([][]chainResult, len(bridgeSpecs))
	t.Run("chains", func(t *testing.T) {
		for i, b := range bridgeSpecs {
			results[i] = make([]chainResult, len(chainModes))
			t.Run(b.name, func(t *testing.T) {
				t.Parallel()
				for j, mode := range chainModes {
					r := runChain(t, node, loop, modules, b, j)
					results[i][j] = r
					if !r.initialized {
						t.Errorf("%s, %s: initialize was not answered; standard error:\n%s", b.name, mode, r.stderr)
						continue
					}
					if mode != "rpcid proxy -remap" {
						continue
					}
					for k, id := range matrixIDs {
						if r.atClient[k] != id {
							t.Errorf("%s, %s: id %s came back as %s", b.name, mode, short(id), short(r.atClient[k]))
						}
					}
					if r.cancelNamed != r.cancelServer {
						t.Errorf("%s, %s: the held request reached the server as %s, the cancel named %s", b.name, mode, r.cancelServer, r.cancelNamed)
					}
				}
			})
		}
	})
	if t.Failed() {
		return
	}
	t.Run("BRIDGES.md", func(t *testing.T) {
		got := renderBridges(results)
		if *update {
			if err := os.WriteFile(bridgesMD, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want, err := os.ReadFile(bridgesMD)
		if err != nil {
			t.Fatal(err)
		}
		if string(want) != got {
			t.Errorf("%s is not what the bridges did: run `cd interop && go test -run TestBridgeMatrix -update` and review the change\n--- got ---\n%s", bridgesMD, got)
		}
	})
}

// runChain runs the raw client through bridge b in chain mode j.
func runChain(t *testing.T, node, loop, modules string, b bridgeSpec, j int) chainResult {
	t.Helper()
	dir := t.TempDir()
	logPath := filepath.Join(dir, "server.log")
	stderr := &lockedBuffer{}
	env := append(os.Environ(), "HOME="+dir, "MCP_REMOTE_CONFIG_DIR="+dir, "NO_UPDATE_NOTIFIER=1", "npm_config_update_notifier=false")
	nodeArgv := []string{node, "--require", loop, filepath.Join(modules, b.script)}
	var flags []string
	switch j {
	case 1:
		flags = []string{}
	case 2:
		flags = []string{"-remap"}
	}
	var c *rawClient
	var server func() []string // what the raw server received so far
	if b.stdio {
		hs := &rawHTTPServer{}
		srv := startHTTP(t, hs)
		server = hs.lines
		argv := append(nodeArgv, b.args(srv.URL+"/mcp", 0, nil)...)
		if flags != nil {
			argv = append(append(append([]string{rpcidBinary(t), "proxy"}, flags...), "--"), argv...)
		}
		c = startStdioRawClient(t, argv, env, stderr)
	} else {
		exe, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		port := freePort(t)
		srvArgv := []string{"env", serverEnv + "=bridge", bridgeLogEnv + "=" + logPath, exe}
		cmd := exec.Command(nodeArgv[0], append(nodeArgv[1:], b.args("", port, srvArgv)...)...)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, stderr, stderr
		cmd.WaitDelay = time.Second
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			cmd.Process.Signal(os.Interrupt)
			done := make(chan struct{})
			go func() { cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-done
			}
		})
		waitPort(t, port)
		url := fmt.Sprintf("http://127.0.0.1:%d%s", port, b.path)
		if flags != nil {
			url = startProxy(t, url, flags...).URL
		}
		c = startHTTPRawClient(url)
		server = func() []string {
			data, _ := os.ReadFile(logPath)
			return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		}
	}
	defer c.stop()
	r := chainResult{}
	c.post(-1, []byte(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"raw","version":"1.0.0"}}}`))
	if _, ok := c.await(-1, wait); !ok {
		r.stderr = stderr.String()
		return r
	}
	r.initialized = true
	c.post(-1, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	time.Sleep(200 * time.Millisecond)
	call := func(id string, n int, mode string) []byte {
		return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"echo","arguments":{"n":%d,"mode":%q}}}`, id, n, mode))
	}
	for n, id := range matrixIDs {
		c.post(n, call(id, n, ""))
		m, ok := c.await(n, dropWait)
		switch {
		case !ok:
			r.atClient = append(r.atClient, "none")
		case m.http != 0:
			r.atClient = append(r.atClient, fmt.Sprintf("HTTP %d", m.http))
		case bytes.Contains(m.raw, []byte(`"error"`)):
			r.atClient = append(r.atClient, string(m.id)+" (error)")
		default:
			r.atClient = append(r.atClient, string(m.id))
		}
	}
	// Two requests in flight with one id.
	c.post(101, call("77", 101, "slow"))
	c.post(102, call("77", 102, "slow"))
	timer := time.NewTimer(dropWait)
	for len(r.dupClient) < 2 {
		var m inMsg
		select {
		case m = <-c.inbox:
		case <-timer.C:
		}
		if m.raw == nil {
			break
		}
		if m.n == 101 || m.n == 102 || m.n == -1 {
			r.dupClient = append(r.dupClient, string(m.id))
		}
	}
	timer.Stop()
	// A request held by the server, then cancelled.
	c.post(200, call(`"held"`, 200, "hold"))
	time.Sleep(500 * time.Millisecond)
	c.post(-1, []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"held","reason":"test"}}`))
	// The server's own requests.
	c.post(300, call(`"ask"`, 300, "ask"))
	c.await(300, 2*dropWait)
	time.Sleep(300 * time.Millisecond)
	r.stderr = stderr.String()
	readServer(&r, server(), c)
	return r
}

// readServer fills in what the server received, from its log.
func readServer(r *chainResult, lines []string, c *rawClient) {
	r.atServer = make([]string, len(matrixIDs))
	for i := range r.atServer {
		r.atServer[i] = "∅"
	}
	r.cancelServer, r.cancelNamed = "∅", "∅"
	r.askServer = make([]string, len(s2cIDs))
	r.askClient = make([]string, len(s2cIDs))
	for i := range s2cIDs {
		r.askServer[i], r.askClient[i] = "∅", "∅"
	}
	for _, l := range lines {
		var m rawCall
		if json.Unmarshal([]byte(l), &m) != nil {
			continue
		}
		switch {
		case m.Method == "tools/call" && m.Params.Arguments.N < len(matrixIDs) && m.Params.Arguments.Mode == "":
			r.atServer[m.Params.Arguments.N] = string(m.ID)
		case m.Method == "tools/call" && m.Params.Arguments.Mode == "slow":
			r.dupServer = append(r.dupServer, string(m.ID))
		case m.Method == "tools/call" && m.Params.Arguments.Mode == "hold":
			r.cancelServer = string(m.ID)
		case m.Method == "notifications/cancelled" && r.cancelServer != "∅":
			r.cancelNamed = string(m.Params.RequestID)
		case m.Method == "" && m.Result != nil && m.Result.Meta.K < len(s2cIDs):
			r.askServer[m.Result.Meta.K] = string(m.ID)
		}
	}
	c.mu.Lock()
	for k, id := range c.asked {
		if k >= 0 && k < len(s2cIDs) {
			r.askClient[k] = id
		}
	}
	c.mu.Unlock()
}

// freePort returns a port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// waitPort waits (at most wait) until something accepts connections on
// 127.0.0.1:port.
func waitPort(t *testing.T, port int) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("nothing listens on 127.0.0.1:%d after %v", port, wait)
}

// short returns an id for a message or a table: ids over 24 bytes cut.
func short(id string) string {
	if len(id) <= 24 {
		return id
	}
	return fmt.Sprintf("%s… (%d bytes)", id[:12], len(id))
}
