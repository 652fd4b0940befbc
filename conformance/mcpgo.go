package conformance

import (
	"encoding/json"
	"strings"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

const mcpGoHow = "`mcp.RequestId.UnmarshalJSON` of the request's id (sent); the response decoded as " +
	"`transport.Stdio.readResponses` does (a base message with `*mcp.RequestId`, then `transport.JSONRPCResponse`), " +
	"keyed by `RequestId.String()` as its `responses` map is (the SSE transport keys the same way)"

// mcpGoMatch runs a case through mcp-go (github.com/mark3labs/mcp-go), as
// its stdio and SSE client transports match responses.
//
// Exercised: mcp.RequestId.UnmarshalJSON (a string, else float64, kept as
// int64 when integral), mcp.RequestId.String ("int64:1", "string:1",
// "float64:1.5") and transport.JSONRPCResponse. Stdio.SendRequest stores
// the reply channel under request.ID.String(); Stdio.readResponses
// unmarshals each line into a base message, then into a
// transport.JSONRPCResponse, and looks up response.ID.String(). Those steps
// are repeated here on one message (the line splitting is left out); a
// message that fails to unmarshal is skipped with continue: Refused. The
// streamable HTTP transport never compares ids and is not measured.
func mcpGoMatch(sent, received []byte) Outcome {
	var req struct {
		ID *mcp.RequestId `json:"id"`
	}
	if json.Unmarshal(requestMessage(sent), &req) != nil || req.ID == nil || req.ID.IsNil() {
		return Unsendable
	}
	responses := map[string]bool{req.ID.String(): true}

	line := strings.TrimRight(string(responseMessage(received, `{}`)), "\r\n")
	var baseMessage struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      *mcp.RequestId `json:"id,omitempty"`
		Method  string         `json:"method,omitempty"`
	}
	if err := json.Unmarshal([]byte(line), &baseMessage); err != nil {
		return Refused
	}
	var response transport.JSONRPCResponse
	if err := json.Unmarshal([]byte(line), &response); err != nil {
		return Refused
	}
	if responses[response.ID.String()] {
		return Match
	}
	return NoMatch
}
