// Package interop holds end-to-end tests of github.com/rpcid/rpcid/httpid
// and of the rpcid proxy command with real MCP SDKs: the Go SDK
// (github.com/modelcontextprotocol/go-sdk v1.8.0), mcp-go
// (github.com/mark3labs/mcp-go v1.2.1) and the TypeScript SDK (npm package
// @modelcontextprotocol/sdk 1.32.2, pinned by node/package-lock.json). It is a
// separate module so that these SDKs never become dependencies of
// github.com/rpcid/rpcid. Everything listens on 127.0.0.1 only, and every
// wait is bounded (15 s).
//
// # httpid
//
// An MCP server built with the go-sdk runs behind a gateway, an
// httputil.ReverseProxy on 127.0.0.1 that turns numeric JSON-RPC ids into
// strings in the responses it forwards (application/json bodies and each
// event of text/event-stream bodies), in the four server modes (stateful or
// stateless, event-stream or JSON responses). The tests show that the go-sdk
// client fails through the gateway, and that the same client with an
// httpid.Transport connects and calls a tool; mcp-go, which never compares
// ids, works either way.
//
// # rpcid proxy
//
// The tests build ../cmd/rpcid once per run (go build, with the root module's
// go.mod) and run it as a separate process, as a user would, reading the
// address from its start line "rpcid proxy: listening on
// http://HOST:PORT/PATH, forwarding to URL" (-listen 127.0.0.1:0). Each
// positive case has a control that fails, or visibly differs, without the
// proxy. They show that:
//
//   - HTTP: an unmodified go-sdk client (a plain http.Client) connects and
//     calls a tool twice through the proxy and the stringifying gateway, in
//     all four server modes, and the proxy writes nothing but its start line;
//     straight at the gateway the same client fails. mcp-go's client, which
//     works without the proxy, works through it too (TestProxyGoSDK).
//   - HTTP+SSE (MCP 2024-11-05): go-sdk's SSEClientTransport works through
//     the proxy and the gateway, also when the gateway turns the endpoint
//     event into an absolute URL on its own host, which the proxy must point
//     at itself (TestProxyLegacySSE).
//   - stdio: go-sdk's CommandTransport running "rpcid proxy -- SERVER", where
//     SERVER is this test binary run again as a go-sdk stdio server whose
//     output turns numeric ids into strings, connects and calls a tool twice,
//     and the proxy exits 0 with the server when the client closes; running
//     SERVER itself, the client hangs (TestProxyStdioGoSDK). SIGINT, SIGTERM
//     and SIGHUP reach SERVER and the proxy exits with 128+N
//     (TestProxyStdioSignals).
//   - TypeScript: the TypeScript SDK client (node/client.mjs), which matches
//     ids leniently and so works without the proxy while receiving strings,
//     keeps working through the proxy in both modes (streamable HTTP in the
//     four server modes; stdio) and with HTTP+SSE, and receives the numeric
//     ids it sent. Its HTTP+SSE client refuses an endpoint URL of another
//     origin, so the absolute-endpoint case fails unless the proxy rewrites
//     the URL (TestProxyTypeScript). It skips when node or npm is not
//     installed; otherwise it runs "npm ci" in node/ first (network or npm
//     cache needed).
//   - Security: requests whose Host is not the proxy's address or
//     localhost:PORT, or whose Origin is another site's, are refused with 403
//     or 421 and a short plain-text reason and never reach the upstream;
//     Authorization, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID and
//     Accept reach the upstream unchanged and a hop-by-hop header does not,
//     the upstream sees its own Host, the client's path and query arrive
//     byte for byte (the upstream URL has no query of its own here), and the
//     proxy adds no credentials (TestProxySecurity).
//   - Exact bytes: a raw JSON-RPC server without an SDK, over HTTP
//     (TestProxyBytes) and over stdio (TestProxyStdioBytes), sends batches,
//     error responses, requests of its own, a duplicate id member, lines and
//     events that are not JSON, multi-line event data with CRLF, and 20 MiB
//     messages; the client receives every byte as sent except the restored
//     ids, compared with an expected byte string written down piece by piece
//     beside the server's (not computed by a scanner), at the default
//     message size limit (the 20 MiB messages pass unexamined) and at
//     -max-message-size 32 MiB (they are restored). -v must log each
//     restored id as `restored response id "1" to 1` and name each id that
//     matched nothing (in HTTP mode only those that arrive while some id is
//     pending: httpid.Transport examines no response while it remembers
//     none).
//   - Long messages: with -max-message-size 4096 a 20 MiB stdio line or
//     event passes unchanged and streamed (the client has its first MiB
//     before the server writes the rest), the next response is restored,
//     and the proxy's peak resident memory stays under 20 MiB
//     (TestProxyStdioLongLine, TestProxyLongEvent).
//   - Streaming: events reach the client one by one as the upstream sends
//     them, and a client that goes away cancels the upstream request
//     (TestProxyStreaming).
//   - Upstreams: an https upstream is verified with the system's roots (its
//     certificate named by SSL_CERT_FILE works, and without it the proxy
//     answers 502), and a gzip-compressing upstream is decoded and restored
//     (TestProxyUpstreams).
//
// # Bridges and -remap
//
// TestBridgeMatrix runs a raw client and a raw server (bridgepeer_test.go)
// through mcp-remote, supergateway and mcp-proxy, pinned in
// bridges/package-lock.json and installed with "cd bridges && npm ci" (it
// skips without node or the bridges), alone, through rpcid proxy and
// through rpcid proxy -remap: initialize, the 21 ids of matrixIDs one at a
// time, two requests in flight with one id, a cancelled request and the
// server's own requests. Each bridge is preloaded with bridges/loopback.cjs,
// which keeps its listeners and connections on 127.0.0.1. Through -remap
// every id must come back byte for byte and the cancel must name the id the
// server saw; the test checks ../conformance/BRIDGES.md against what it
// measured, and writes it with -update:
//
//	cd interop && go test -run TestBridgeMatrix -update
//
// TestRemapGoSDK and TestRemapTypeScript run the go-sdk and TypeScript SDK
// clients through rpcid proxy -remap: initialize, tools/call and a call
// cancelled at the server.
//
// Run them with
//
//	cd interop && go test ./...
//
// and record the gateway traffic of one session into ../cmd/rpcid/internal/check/testdata
// (HAR 1.2 and JSON Lines) with
//
//	cd interop && go test -run TestRecordGoSDKGateway -record
package interop
