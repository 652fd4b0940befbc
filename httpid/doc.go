// Package httpid restores JSON-RPC response ids that an HTTP intermediary
// changed in transit, for any Go client that accepts an *http.Client.
//
// Some gateways and session bridges re-encode JSON-RPC messages and change the
// JSON type of the id on the way back: a client sends "id":1 and receives
// "id":"1". JSON-RPC 2.0 (section 5) says the response id must be the same as
// the request's, and clients that compare type and value drop such a response
// or fail. The MCP Go SDK (github.com/modelcontextprotocol/go-sdk v1.8.0), for
// example, fails Connect with "request terminated without response" when
// responses come as an event stream, and waits until its deadline when they
// come as application/json.
//
// Transport sits between such a client and the network. It remembers the ids
// of the requests it sends and writes each response id that is equal under the
// rpcid rule (package github.com/rpcid/rpcid: "1" equals 1, "01" and 1.5 do
// not) back in the exact spelling that was sent. Nothing else in the response
// changes, and only JSON-RPC 2.0 messages ("jsonrpc":"2.0") whose members
// every JSON-RPC implementation reads alike are touched: other JSON fetched
// through the same client passes unchanged. Streamed bodies (event streams,
// newline-delimited JSON) are restored as they arrive. With the MCP Go SDK:
//
//	transport := &mcp.StreamableClientTransport{
//		Endpoint:   url,
//		HTTPClient: &http.Client{Transport: &httpid.Transport{}},
//	}
//	session, err := client.Connect(ctx, transport, nil)
//
// Ids a gateway invents, rather than changes, cannot be mapped back: they
// equal no id that was sent, and pass unchanged.
package httpid
