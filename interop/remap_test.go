package interop

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// waitCancelled is the line a stdio server of newWaitServer writes to
// standard error when a call of its wait tool is cancelled.
const waitCancelled = "interop-server: wait cancelled"

// newWaitServer is newMCPServer with a tool "wait" that returns only when
// its call is cancelled (or after wait): then it sends on cancelled, or,
// when cancelled is nil, writes waitCancelled to standard error.
func newWaitServer(cancelled chan<- struct{}) *mcp.Server {
	s := newMCPServer()
	mcp.AddTool(s, &mcp.Tool{Name: "wait", Description: "Wait until cancelled."},
		func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, struct{}, error) {
			select {
			case <-ctx.Done():
				if cancelled != nil {
					cancelled <- struct{}{}
				} else {
					fmt.Fprintln(os.Stderr, waitCancelled)
				}
				return nil, struct{}{}, ctx.Err()
			case <-time.After(wait):
				return nil, struct{}{}, nil
			}
		})
	return s
}

// remapSession is goSDKSessionOver with a call of the wait tool cancelled
// between the two calls of add.
func remapSession(ctx context.Context, t mcp.Transport) error {
	c := mcp.NewClient(&mcp.Implementation{Name: "interop-go-sdk-client", Version: "v1.0.0"}, nil)
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("Connect: %w", err)
	}
	defer cs.Close()
	for i, in := range []addArgs{{A: 2, B: 3}, {A: 40, B: 2}} {
		if i == 1 {
			cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
			_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("CallTool wait: %v, want the context's deadline", err)
			}
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: in})
		if err != nil {
			return fmt.Errorf("CallTool %d: %w", i+1, err)
		}
		if err := checkSum(res.IsError, res.StructuredContent, in); err != nil {
			return fmt.Errorf("CallTool %d: %w", i+1, err)
		}
	}
	return cs.Close()
}

// TestRemapGoSDK runs the go-sdk client through "rpcid proxy -remap" and
// the stringifying gateway in the four server modes and over HTTP+SSE
// (MCP 2024-11-05), and over stdio with a
// server that turns ids into strings: it connects, calls a tool, has a call
// cancelled, and calls a tool again. The cancel reaches the server's call
// in the stateful modes and over stdio (a stateless server has no call to
// cancel once the POST is gone).
func TestRemapGoSDK(t *testing.T) {
	t.Parallel()
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			cancelled := make(chan struct{}, 1)
			s := newWaitServer(cancelled)
			srv := startHTTP(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
				&mcp.StreamableHTTPOptions{Stateless: m.stateless, JSONResponse: m.json}))
			g := newGateway(t, srv.URL, stringify, nil)
			p := startProxy(t, g.URL+"/mcp", "-remap")
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			if err := remapSession(ctx, &mcp.StreamableClientTransport{Endpoint: p.URL, HTTPClient: plainClient()}); err != nil {
				t.Fatalf("go-sdk client through rpcid proxy -remap: %v", err)
			}
			if !m.stateless {
				select {
				case <-cancelled:
				case <-time.After(wait):
					t.Errorf("the server's wait call was not cancelled")
				}
			}
			if g.changes.Load() == 0 {
				t.Errorf("the gateway changed no id")
			}
			p.quiet(t)
		})
	}
	t.Run("sse", func(t *testing.T) {
		// The 2024-11-05 HTTP+SSE transport: every response arrives on the
		// GET stream, none on the POST that sent its request.
		t.Parallel()
		cancelled := make(chan struct{}, 1)
		s := newWaitServer(cancelled)
		mux := http.NewServeMux()
		mux.Handle("/sse", mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
		g := newGateway(t, startHTTP(t, mux).URL, stringify, nil)
		p := startProxy(t, g.URL+"/sse", "-remap")
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if err := remapSession(ctx, &mcp.SSEClientTransport{Endpoint: p.URL, HTTPClient: plainClient()}); err != nil {
			t.Fatalf("go-sdk SSE client through rpcid proxy -remap: %v", err)
		}
		select {
		case <-cancelled:
		case <-time.After(wait):
			t.Errorf("the server's wait call was not cancelled")
		}
		if g.changes.Load() == 0 {
			t.Errorf("the gateway changed no id")
		}
		p.quiet(t)
	})
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		argv, env := selfServer(t, "stringify")
		cmd := exec.Command(rpcidBinary(t), append([]string{"proxy", "-remap", "--"}, argv...)...)
		cmd.Env = env
		w := newWatch()
		cmd.Stderr = w
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if err := remapSession(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: wait}); err != nil {
			t.Fatalf("go-sdk client through rpcid proxy -remap: %v\nstandard error:\n%s", err, w.String())
		}
		if !strings.Contains(w.String(), waitCancelled) {
			t.Errorf("the server's wait call was not cancelled; standard error:\n%s", w.String())
		}
		if !w.changed() {
			t.Errorf("the server changed no id; standard error:\n%s", w.String())
		}
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("rpcid proxy exited with status %d, want 0", code)
		}
	})
}

// TestRemapTypeScript runs the TypeScript SDK client (node/client.mjs)
// through "rpcid proxy -remap" and the stringifying gateway (streamable HTTP,
// stateful) and over stdio: it connects, calls a tool, has a call of wait
// cancelled, calls a tool again, and receives the numeric ids it sent. The
// cancel reaches the server's call.
func TestRemapTypeScript(t *testing.T) {
	t.Parallel()
	nodeClient(t)
	env := append(os.Environ(), "RPCID_INTEROP_CANCEL=1")
	t.Run("http", func(t *testing.T) {
		t.Parallel()
		cancelled := make(chan struct{}, 1)
		s := newWaitServer(cancelled)
		srv := startHTTP(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
		g := newGateway(t, srv.URL, stringify, nil)
		p := startProxy(t, g.URL+"/mcp", "-remap")
		r := runNode(t, env, "http", p.URL)
		if types := idTypes(r.ResponseIDs); !allOf(types, "number") || !r.Cancelled {
			t.Errorf("through rpcid proxy -remap the client received response ids %s (%v), cancelled %v; want numbers, true", r.ResponseIDs, types, r.Cancelled)
		}
		select {
		case <-cancelled:
		case <-time.After(wait):
			t.Errorf("the server's wait call was not cancelled")
		}
		if g.changes.Load() == 0 {
			t.Errorf("the gateway changed no id")
		}
		p.quiet(t)
	})
	t.Run("stdio", func(t *testing.T) {
		t.Parallel()
		argv, senv := selfServer(t, "stringify")
		r := runNode(t, append(senv, "RPCID_INTEROP_CANCEL=1"), append([]string{"stdio", rpcidBinary(t), "proxy", "-remap", "--"}, argv...)...)
		if types := idTypes(r.ResponseIDs); !allOf(types, "number") || !r.Cancelled {
			t.Errorf("through rpcid proxy -remap the client received response ids %s (%v), cancelled %v; want numbers, true", r.ResponseIDs, types, r.Cancelled)
		}
		if !strings.Contains(r.stderr, waitCancelled) {
			t.Errorf("the server's wait call was not cancelled; standard error:\n%s", r.stderr)
		}
	})
}
