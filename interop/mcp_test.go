package interop

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mcpgoclient "github.com/mark3labs/mcp-go/client"
	mcpgotransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rpcid/rpcid/httpid"
)

// wait bounds every wait in these tests.
const wait = 15 * time.Second

// grace is how long a client that has received its response through the
// gateway is given to act on it before it is taken to be hanging. A client
// that matches the response needs microseconds; one that dropped it never
// returns by itself.
const grace = 2 * time.Second

// A mode is one configuration of the go-sdk streamable HTTP server.
type mode struct {
	name      string
	stateless bool // StreamableHTTPOptions.Stateless
	json      bool // StreamableHTTPOptions.JSONResponse
}

var modes = []mode{
	{"stateful-sse", false, false},
	{"stateful-json", false, true},
	{"stateless-sse", true, false},
	{"stateless-json", true, true},
}

type addArgs struct {
	A int `json:"a" jsonschema:"the first addend"`
	B int `json:"b" jsonschema:"the second addend"`
}

type addResult struct {
	Sum int `json:"sum" jsonschema:"a+b"`
}

// newMCPServer returns a go-sdk MCP server with one tool, "add".
func newMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "interop-server", Version: "v1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two integers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in addArgs) (*mcp.CallToolResult, addResult, error) {
			return nil, addResult{Sum: in.A + in.B}, nil
		})
	return s
}

// startServer starts a go-sdk MCP server on 127.0.0.1 with the streamable
// HTTP transport in mode m.
func startServer(t *testing.T, m mode) *httptest.Server {
	t.Helper()
	s := newMCPServer()
	return startHTTP(t, mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: m.stateless, JSONResponse: m.json}))
}

func startHTTP(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		srv.CloseClientConnections() // end event streams a failed client left open
		srv.Close()
	})
	return srv
}

// goSDKSession connects a go-sdk client to endpoint through hc with the
// streamable HTTP transport, calls the add tool twice and closes the session.
func goSDKSession(ctx context.Context, endpoint string, hc *http.Client) error {
	return goSDKSessionOver(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc})
}

// goSDKSessionOver does the same over transport t.
func goSDKSessionOver(ctx context.Context, t mcp.Transport) error {
	c := mcp.NewClient(&mcp.Implementation{Name: "interop-go-sdk-client", Version: "v1.0.0"}, nil)
	cs, err := c.Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("Connect: %w", err)
	}
	defer cs.Close()
	for i, in := range []addArgs{{A: 2, B: 3}, {A: 40, B: 2}} {
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

// mcpgoSession does the same with mcp-go's streamable HTTP client. If
// version is not empty, the client is pinned to that protocol version.
func mcpgoSession(ctx context.Context, endpoint string, hc *http.Client, version string) error {
	tr, err := mcpgotransport.NewStreamableHTTP(endpoint, mcpgotransport.WithHTTPBasicClient(hc))
	if err != nil {
		return err
	}
	c := mcpgoclient.NewClient(tr, mcpgoclient.WithProtocolVersion(version))
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return fmt.Errorf("Start: %w", err)
	}
	var init mcpgo.InitializeRequest
	init.Params.ClientInfo = mcpgo.Implementation{Name: "interop-mcp-go-client", Version: "v1.0.0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return fmt.Errorf("Initialize: %w", err)
	}
	for i, in := range []addArgs{{A: 2, B: 3}, {A: 40, B: 2}} {
		var req mcpgo.CallToolRequest
		req.Params.Name = "add"
		req.Params.Arguments = in
		res, err := c.CallTool(ctx, req)
		if err != nil {
			return fmt.Errorf("CallTool %d: %w", i+1, err)
		}
		if err := checkSum(res.IsError, res.StructuredContent, in); err != nil {
			return fmt.Errorf("CallTool %d: %w", i+1, err)
		}
	}
	return c.Close()
}

func checkSum(isError bool, structured any, in addArgs) error {
	if isError {
		return errors.New("tool reported an error")
	}
	b, err := json.Marshal(structured)
	if err != nil {
		return err
	}
	var out addResult
	if err := json.Unmarshal(b, &out); err != nil {
		return fmt.Errorf("structured content %s: %w", b, err)
	}
	if out.Sum != in.A+in.B {
		return fmt.Errorf("add(%d, %d) = %d, want %d", in.A, in.B, out.Sum, in.A+in.B)
	}
	return nil
}

// httpidClient returns an http.Client whose transport is an httpid.Transport.
func httpidClient() (*http.Client, *httpid.Transport) {
	tr := &httpid.Transport{Base: http.DefaultTransport.(*http.Transport).Clone()}
	return &http.Client{Transport: tr}, tr
}

func plainClient() *http.Client {
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
}

// A run is the outcome of a session run against a gateway.
type run struct {
	err     error
	changed bool // the gateway changed an id
	hung    bool // the session was still waiting grace after an id changed
}

// runSession runs session to its end, within wait.
func runSession(g *gateway, session func(context.Context) error) run {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	err := session(ctx)
	return run{err: err, changed: g.changes.Load() > 0}
}

// runUntilHang runs a session that is expected to hang once the gateway has
// changed an id: it is canceled if it is still running grace after the first
// change. A session that dropped its response never ends by itself, so grace
// only decides how long the test takes, never whether it passes: a client that
// did match the response would have ended with success and fail the test.
func runUntilHang(t *testing.T, g *gateway, session func(context.Context) error) run {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- session(ctx) }()
	var r run
	select {
	case r.err = <-done:
		r.changed = g.changes.Load() > 0
		return r
	case <-g.changed:
		r.changed = true
	}
	select {
	case r.err = <-done:
		return r
	case <-time.After(grace):
		r.hung = true
		cancel()
	}
	select {
	case r.err = <-done:
	case <-time.After(wait):
		t.Fatalf("session did not end %v after cancellation", wait)
	}
	return r
}

// TestGoSDKThroughGateway shows, in each server mode, that the go-sdk client
// fails through a gateway that turns numeric ids into strings, and that the
// same client with an httpid.Transport connects and calls a tool twice.
func TestGoSDKThroughGateway(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t, m)

			t.Run("control without gateway", func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), wait)
				defer cancel()
				if err := goSDKSession(ctx, srv.URL, plainClient()); err != nil {
					t.Errorf("plain client, no gateway: %v", err)
				}
				hc, tr := httpidClient()
				if err := goSDKSession(ctx, srv.URL, hc); err != nil {
					t.Errorf("httpid client, no gateway: %v", err)
				}
				if n := tr.Len(); n != 0 {
					t.Errorf("httpid.Transport remembers %d ids after the session, want 0", n)
				}
			})

			t.Run("plain client fails", func(t *testing.T) {
				g := newGateway(t, srv.URL, stringify, nil)
				session := func(ctx context.Context) error {
					return goSDKSession(ctx, g.URL, plainClient())
				}
				var r run
				if m.json {
					r = runUntilHang(t, g, session)
				} else {
					r = runSession(g, session)
				}
				if r.err == nil {
					t.Fatalf("the plain go-sdk client succeeded through the gateway; is the gateway active?")
				}
				if !r.changed {
					t.Fatalf("failed before the gateway changed any id: %v", r.err)
				}
				t.Logf("plain client: %v (hung: %v)", r.err, r.hung)
				if m.json {
					// The response is decoded, matches no call, and is dropped:
					// Connect waits until its context ends.
					if !r.hung || !errors.Is(r.err, context.Canceled) {
						t.Errorf("JSON responses: got %v, hung %v; want a hang ended by cancellation", r.err, r.hung)
					}
				} else if !strings.Contains(r.err.Error(), "request terminated without response") {
					// The stream ends without an event whose id == the call's id.
					t.Errorf("event streams: got %v; want %q", r.err, "request terminated without response")
				}
			})

			t.Run("httpid client works", func(t *testing.T) {
				g := newGateway(t, srv.URL, stringify, nil)
				hc, tr := httpidClient()
				r := runSession(g, func(ctx context.Context) error {
					return goSDKSession(ctx, g.URL, hc)
				})
				if r.err != nil {
					t.Fatalf("httpid client through the gateway: %v", r.err)
				}
				if !r.changed {
					t.Errorf("the gateway changed no id")
				}
				if n := tr.Len(); n != 0 {
					t.Errorf("httpid.Transport remembers %d ids after the session, want 0", n)
				}
			})
		})
	}
}

// TestMCPGoThroughGateway shows that mcp-go's streamable HTTP client works
// through the same gateway with or without httpid: it never compares a
// response's id with the request's, and takes whatever response arrives on a
// request's HTTP exchange as its answer.
//
// Against the stateful server the client is pinned to protocol version
// 2025-11-25: by default mcp-go v1.2.1 discovers 2026-07-28 through
// server/discover and then sends tools/call with it, which the stateful
// go-sdk v1.8.0 server refuses ("unsupported protocol version"), gateway or
// not.
func TestMCPGoThroughGateway(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t, m)
			version := ""
			if !m.stateless {
				version = mcpgo.LATEST_LEGACY_PROTOCOL_VERSION
			}
			t.Run("control without gateway", func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), wait)
				defer cancel()
				if err := mcpgoSession(ctx, srv.URL, plainClient(), version); err != nil {
					t.Errorf("mcp-go, no gateway: %v", err)
				}
			})
			for _, c := range []struct {
				name string
				hc   func() *http.Client
			}{
				{"plain client", plainClient},
				{"httpid client", func() *http.Client { hc, _ := httpidClient(); return hc }},
			} {
				t.Run(c.name, func(t *testing.T) {
					g := newGateway(t, srv.URL, stringify, nil)
					r := runSession(g, func(ctx context.Context) error {
						return mcpgoSession(ctx, g.URL, c.hc(), version)
					})
					if r.err != nil {
						t.Errorf("mcp-go through the gateway: %v", r.err)
					}
					if !r.changed {
						t.Errorf("the gateway changed no id")
					}
				})
			}
		})
	}
}

// TestInventedIDs shows the limit of httpid: a gateway that replaces ids with
// its own ("gw-1") sends ids equal to nothing that was sent, so they cannot
// be mapped back, and the go-sdk client fails even with httpid. mcp-go, which
// never compares ids, does not notice.
func TestInventedIDs(t *testing.T) {
	m := mode{"stateless-sse", true, false}
	srv := startServer(t, m)

	t.Run("go-sdk with httpid", func(t *testing.T) {
		g := newGateway(t, srv.URL, invent(), nil)
		hc, tr := httpidClient()
		r := runSession(g, func(ctx context.Context) error {
			return goSDKSession(ctx, g.URL, hc)
		})
		if r.err == nil || !r.changed {
			t.Errorf("got %v (gateway changed ids: %v); want failure after the gateway invented an id", r.err, r.changed)
		}
		if n := tr.Len(); n > 2 {
			t.Errorf("httpid.Transport remembers %d ids after the failed session, want at most 2 (the unanswered discover and initialize)", n)
		}
	})

	t.Run("mcp-go", func(t *testing.T) {
		g := newGateway(t, srv.URL, invent(), nil)
		r := runSession(g, func(ctx context.Context) error {
			return mcpgoSession(ctx, g.URL, plainClient(), "")
		})
		if r.err != nil || !r.changed {
			t.Errorf("got %v (gateway changed ids: %v); want success: mcp-go accepts any id", r.err, r.changed)
		}
	})
}

// TestGoSDKLegacySSEThroughGateway covers the HTTP+SSE transport of MCP
// 2024-11-05, where each POST is answered 202 Accepted with no body and the
// response arrives on the client's GET event stream: another HTTP exchange.
// httpid keeps the ids of such requests (within MaxPending) and restores
// them on that stream.
func TestGoSDKLegacySSEThroughGateway(t *testing.T) {
	s := newMCPServer()
	srv := startHTTP(t, mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))

	t.Run("plain client fails", func(t *testing.T) {
		g := newGateway(t, srv.URL, stringify, nil)
		r := runUntilHang(t, g, func(ctx context.Context) error {
			return goSDKSessionOver(ctx, &mcp.SSEClientTransport{Endpoint: g.URL, HTTPClient: plainClient()})
		})
		if r.err == nil || !r.changed {
			t.Fatalf("got %v (gateway changed ids: %v); want failure after the gateway changed an id", r.err, r.changed)
		}
		t.Logf("plain client: %v (hung: %v)", r.err, r.hung)
	})

	t.Run("httpid client works", func(t *testing.T) {
		g := newGateway(t, srv.URL, stringify, nil)
		hc, tr := httpidClient()
		r := runSession(g, func(ctx context.Context) error {
			return goSDKSessionOver(ctx, &mcp.SSEClientTransport{Endpoint: g.URL, HTTPClient: hc})
		})
		if r.err != nil || !r.changed {
			t.Fatalf("httpid client: %v (gateway changed ids: %v)", r.err, r.changed)
		}
		if n := tr.Len(); n != 0 {
			t.Errorf("httpid.Transport remembers %d ids after the session, want 0", n)
		}
	})
}
