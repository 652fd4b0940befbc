// Package interop holds end-to-end tests of github.com/rpcid/rpcid/httpid
// with real MCP SDKs: github.com/modelcontextprotocol/go-sdk and
// github.com/mark3labs/mcp-go. It is a separate module so that these SDKs
// never become dependencies of github.com/rpcid/rpcid.
//
// The tests run an MCP server built with the go-sdk behind a gateway, an
// httputil.ReverseProxy on 127.0.0.1 that turns numeric JSON-RPC ids into
// strings in the responses it forwards (application/json bodies and each
// event of text/event-stream bodies), in the four server modes (stateful or
// stateless, event-stream or JSON responses). They show that the go-sdk
// client fails through the gateway, and that the same client with an
// httpid.Transport connects and calls a tool.
//
// Run them with
//
//	cd interop && go test ./...
//
// and record the gateway traffic of one session into ../cmd/rpcid/testdata
// (HAR 1.2 and JSON Lines) with
//
//	cd interop && go test -run TestRecordGoSDKGateway -record
package interop
