package interop

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rpcid/rpcid/httpid"
)

// TestEventStreamEdges runs the real go-sdk client against a server whose
// event-stream answers have the id as a string (a gateway changed it) and
// one of two shapes the SSE standard reads otherwise than go-sdk does:
//   - the stream ends right after the event's data line, without the blank
//     line that ends the event (gateways that close the stream at once:
//     openai/openai-node#2725): the standard discards the event, go-sdk
//     delivers it;
//   - the event type has spaces around "message", which go-sdk trims.
//
// Without httpid the client fails (the id is a string); with it, it
// connects and pings. With numeric ids and no httpid it connects too: the
// shape alone is no fault.
func TestEventStreamEdges(t *testing.T) {
	for _, shape := range []struct{ name, event, end string }{
		{"stream ends after the data line", "event: message\n", "\n"},
		{"stream ends within the data line", "event: message\n", ""},
		{"type with spaces", "event:  message \n", "\n\n"},
	} {
		for _, c := range []struct {
			name            string
			stringify, wrap bool
			ok              bool
		}{
			{"numeric ids, plain client", false, false, true},
			{"string ids, plain client", true, false, false},
			{"string ids, httpid", true, true, true},
		} {
			t.Run(shape.name+"/"+c.name, func(t *testing.T) {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method != http.MethodPost {
						w.WriteHeader(http.StatusMethodNotAllowed)
						return
					}
					var m struct {
						ID     json.RawMessage `json:"id"`
						Method string          `json:"method"`
					}
					body, _ := io.ReadAll(r.Body)
					if json.Unmarshal(body, &m) != nil || m.ID == nil {
						w.WriteHeader(http.StatusAccepted) // a notification
						return
					}
					id := string(m.ID)
					if c.stringify {
						id = strconv.Quote(id)
					}
					result := `{}`
					if m.Method == "initialize" {
						result = `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"edge","version":"1"}}`
					}
					w.Header().Set("Content-Type", "text/event-stream")
					fmt.Fprintf(w, "%sdata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}%s", shape.event, id, result, shape.end)
				}))
				defer srv.Close()
				hc := &http.Client{Timeout: 5 * time.Second}
				if c.wrap {
					hc.Transport = &httpid.Transport{}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				client := mcp.NewClient(&mcp.Implementation{Name: "edge", Version: "1"}, nil)
				s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: hc, DisableStandaloneSSE: true}, nil)
				if err == nil {
					err = s.Ping(ctx, nil)
					s.Close()
				}
				if (err == nil) != c.ok {
					t.Errorf("connect and ping: err = %v, want success %v", err, c.ok)
				}
			})
		}
	}
}
