package httpid_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/rpcid/rpcid/httpid"
)

// A gateway answers "id":1 with "id":"1". Through an httpid.Transport the
// client reads the id it sent; nothing else in the body changes.
//
// With the MCP Go SDK (github.com/modelcontextprotocol/go-sdk), the change
// is the HTTPClient field of the streamable transport:
//
//	transport := &mcp.StreamableClientTransport{
//		Endpoint:   url,
//		HTTPClient: &http.Client{Transport: &httpid.Transport{}},
//	}
//
// The interop module of this repository runs that against a real SDK server
// behind such a gateway.
func Example() {
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"1","result":{"answer":42}}`)
	}))
	defer gateway.Close()

	client := &http.Client{Transport: &httpid.Transport{}}
	resp, err := client.Post(gateway.URL, "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"answer"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(string(body))
	// Output: {"jsonrpc":"2.0","id":1,"result":{"answer":42}}
}

// Responses that arrive as server-sent events are restored event by event as
// the stream is read; comments and other fields pass unchanged.
func Example_eventStream() {
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, ": keepalive\n\n")
		io.WriteString(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"7\",\"result\":{}}\n\n")
	}))
	defer gateway.Close()

	client := &http.Client{Transport: &httpid.Transport{}}
	resp, err := client.Post(gateway.URL, "application/json",
		strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"ping"}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Print(string(body))
	// Output:
	// : keepalive
	//
	// event: message
	// data: {"jsonrpc":"2.0","id":7,"result":{}}
}
