package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// npmWait bounds "npm ci" (a fresh install downloads about 100 packages).
const npmWait = 3 * time.Minute

// nodeWait bounds one run of node/client.mjs. Node loads about a hundred
// modules before the client connects; on a loaded machine that alone has
// taken 8 s, and exiting as long again, so the bound is looser than wait.
const nodeWait = time.Minute

// nodeSlots limits how many node processes run at once, so that each gets
// the CPU it needs within nodeWait however many subtests run in parallel.
var nodeSlots = make(chan struct{}, 2)

var npm struct {
	once sync.Once
	node string
	skip string // why the tests skip, if they do
	err  error
}

// nodeClient returns the path of node after installing node/package-lock.json
// with "npm ci" (once per test process). It skips t when node or npm is not
// installed.
func nodeClient(t *testing.T) string {
	t.Helper()
	npm.once.Do(func() {
		node, err := exec.LookPath("node")
		if err != nil {
			npm.skip = "node is not installed: the TypeScript SDK interop tests need Node.js 18 or later with npm"
			return
		}
		npmPath, err := exec.LookPath("npm")
		if err != nil {
			npm.skip = "npm is not installed: the TypeScript SDK interop tests need Node.js 18 or later with npm"
			return
		}
		npm.node = node
		// Read here, so that go test's result cache depends on them (node
		// and npm read them in child processes, which go test does not see).
		for _, f := range []string{"client.mjs", "package.json", "package-lock.json"} {
			if _, err := os.ReadFile(filepath.Join("node", f)); err != nil {
				npm.err = err
				return
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), npmWait)
		defer cancel()
		cmd := exec.CommandContext(ctx, npmPath, "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = "node"
		if out, err := cmd.CombinedOutput(); err != nil {
			npm.err = fmt.Errorf("npm ci in interop/node: %v\n%s", err, out)
		}
	})
	if npm.skip != "" {
		t.Skip(npm.skip)
	}
	if npm.err != nil {
		t.Fatal(npm.err)
	}
	return npm.node
}

// A nodeResult is what node/client.mjs prints.
type nodeResult struct {
	Sums        []int             `json:"sums"`
	ResponseIDs []json.RawMessage `json:"responseIds"`
	Cancelled   bool              `json:"cancelled"`
	stderr      string
}

// runNode runs node/client.mjs with args and env (nil: this process's),
// within nodeWait, and returns its result.
func runNode(t *testing.T, env []string, args ...string) nodeResult {
	t.Helper()
	node := nodeClient(t)
	nodeSlots <- struct{}{}
	defer func() { <-nodeSlots }()
	ctx, cancel := context.WithTimeout(context.Background(), nodeWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"client.mjs"}, args...)...)
	cmd.Dir = "node"
	cmd.Env = env
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client.mjs %s: %v after %v\nstandard error:\n%s", strings.Join(args, " "), err, time.Since(start).Round(time.Millisecond), stderr.String())
	}
	var r nodeResult
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("node client.mjs printed %q: %v", stdout.String(), err)
	}
	r.stderr = stderr.String()
	if want := []int{5, 42}; !slices.Equal(r.Sums, want) {
		t.Errorf("sums %v, want %v", r.Sums, want)
	}
	return r
}

// idTypes returns "number" or "string" for each response id.
func idTypes(ids []json.RawMessage) []string {
	var types []string
	for _, id := range ids {
		switch {
		case len(id) > 0 && id[0] == '"':
			types = append(types, "string")
		case len(id) > 0 && (id[0] == '-' || '0' <= id[0] && id[0] <= '9'):
			types = append(types, "number")
		default:
			types = append(types, string(id))
		}
	}
	return types
}

// allOf reports whether types has at least one element and all are typ.
func allOf(types []string, typ string) bool {
	return len(types) > 0 && !slices.ContainsFunc(types, func(s string) bool { return s != typ })
}

// TestProxyTypeScript runs the TypeScript MCP SDK client (node/client.mjs)
// through "rpcid proxy" in both modes. That client matches response ids
// leniently (Number(id)), so it works through the stringifying gateway or
// server on its own; the proxy must stay transparent to it, and it must now
// receive the ids as it sent them, numbers.
func TestProxyTypeScript(t *testing.T) {
	t.Parallel()
	nodeClient(t)

	for _, m := range modes {
		t.Run("http "+m.name, func(t *testing.T) {
			t.Parallel()
			srv := startMCP(t, m)
			g := newGateway(t, srv.URL, stringify, nil)
			p := startProxy(t, g.URL+"/mcp")
			r := runNode(t, nil, "http", p.URL)
			if types := idTypes(r.ResponseIDs); !allOf(types, "number") {
				t.Errorf("through the proxy the client received response ids %s (%v), want numbers", r.ResponseIDs, types)
			}
			if g.changes.Load() == 0 {
				t.Errorf("the gateway changed no id")
			}
			p.quiet(t)

			// Control: straight at the gateway the client works too, and
			// sees the strings the gateway made.
			r = runNode(t, nil, "http", g.URL+"/mcp")
			if types := idTypes(r.ResponseIDs); !allOf(types, "string") {
				t.Errorf("straight at the gateway the client received response ids %s (%v), want strings", r.ResponseIDs, types)
			}
		})
	}

	// The HTTP+SSE transport of MCP 2024-11-05. The TypeScript client
	// refuses an endpoint event whose URL has another origin than the
	// stream's, so through a gateway that makes the URL absolute it works
	// only if the proxy points the URL at itself.
	for _, abs := range []bool{false, true} {
		name := "sse relative endpoint"
		if abs {
			name = "sse absolute endpoint"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newMCPServer()
			mux := http.NewServeMux()
			mux.Handle("/sse", mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
			srv := startHTTP(t, mux)
			g := newGateway(t, srv.URL, stringify, nil)
			g.absEndpoint = abs
			p := startProxy(t, g.URL+"/sse")
			r := runNode(t, nil, "sse", p.URL)
			if types := idTypes(r.ResponseIDs); !allOf(types, "number") {
				t.Errorf("through the proxy the client received response ids %s (%v), want numbers", r.ResponseIDs, types)
			}
			if g.changes.Load() == 0 {
				t.Errorf("the gateway changed no id")
			}
			if abs && g.endpoints.Load() == 0 {
				t.Errorf("the gateway made no endpoint absolute")
			}
			p.quiet(t)

			// Control: straight at the gateway, the ids are strings.
			r = runNode(t, nil, "sse", g.URL+"/sse")
			if types := idTypes(r.ResponseIDs); !allOf(types, "string") {
				t.Errorf("straight at the gateway the client received response ids %s (%v), want strings", r.ResponseIDs, types)
			}
		})
	}

	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		argv, env := selfServer(t, "stringify")
		r := runNode(t, env, append([]string{"stdio", rpcidBinary(t), "proxy", "--"}, argv...)...)
		if types := idTypes(r.ResponseIDs); !allOf(types, "number") {
			t.Errorf("through the proxy the client received response ids %s (%v), want numbers", r.ResponseIDs, types)
		}
		if !strings.Contains(r.stderr, changedMarker) {
			t.Errorf("the server changed no id; standard error:\n%s", r.stderr)
		}

		// Control: spawning the server itself.
		r = runNode(t, env, append([]string{"stdio"}, argv...)...)
		if types := idTypes(r.ResponseIDs); !allOf(types, "string") {
			t.Errorf("without the proxy the client received response ids %s (%v), want strings", r.ResponseIDs, types)
		}
	})
}
