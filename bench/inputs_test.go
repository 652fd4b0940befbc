package bench

import (
	"encoding/json"
	"strings"

	mcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/rpcid/rpcid"
	segjson "github.com/segmentio/encoding/json"
	sg "github.com/sourcegraph/jsonrpc2"
)

// input is one id as it appears on the wire: the raw JSON text of the value
// of an "id" member.
type input struct {
	name string // sub-benchmark name, after "in="
	raw  string
}

// str64 is a 64-byte string id without escapes: long enough that neither a
// 32-byte stack buffer nor a small-string path hides an allocation.
var str64 = "req-" + strings.Repeat("7f3a9c", 10)

// inputs are the ids every implementation is timed on.
var inputs = []input{
	{"int", `1234567`},
	{"numstr", `"1234567"`},
	{"str", `"req-7f3a9c"`},
	{"str64", `"` + str64 + `"`},
	{"frac", `1.5`},
	{"bigint", `9223372036854775807`},
	{"null", `null`},
}

// message returns a minimal JSON-RPC 2.0 response carrying the id raw.
func message(raw string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":` + raw + `,"result":{}}`)
}

// gosdkID decodes raw the way go-sdk's DecodeMessage decodes the "id"
// member: github.com/segmentio/encoding/json (which go-sdk's internal json
// package wraps) into an any, then the exported jsonrpc.MakeID. This
// reconstructs, from exported pieces, the id step of an unexported path;
// gosdkMessageID runs the real one.
func gosdkID(raw []byte) (jsonrpc.ID, error) {
	var v any
	if err := segjson.Unmarshal(raw, &v); err != nil {
		return jsonrpc.ID{}, err
	}
	return jsonrpc.MakeID(v)
}

// gosdkMessageID decodes the response message(raw) with go-sdk's exported
// DecodeMessage and returns its id.
func gosdkMessageID(raw []byte) (jsonrpc.ID, error) {
	m, err := jsonrpc.DecodeMessage(message(string(raw)))
	if err != nil {
		return jsonrpc.ID{}, err
	}
	switch m := m.(type) {
	case *jsonrpc.Response:
		return m.ID, nil
	case *jsonrpc.Request:
		return m.ID, nil
	}
	return jsonrpc.ID{}, nil
}

// mcpgoID decodes raw with mcp-go's RequestId.UnmarshalJSON, which its
// transports reach through encoding/json when decoding a response.
func mcpgoID(raw []byte) (mcp.RequestId, error) {
	var id mcp.RequestId
	err := id.UnmarshalJSON(raw)
	return id, err
}

// sgID decodes raw with sourcegraph/jsonrpc2's ID.UnmarshalJSON, which
// its Response.UnmarshalJSON reaches through encoding/json.
func sgID(raw []byte) (sg.ID, error) {
	var id sg.ID
	err := id.UnmarshalJSON(raw)
	return id, err
}

// anyID decodes raw with encoding/json into an any: the baseline.
func anyID(raw []byte) (any, error) {
	var v any
	err := json.Unmarshal(raw, &v)
	return v, err
}

// wireMsg is the decode form of a JSON-RPC 2.0 message with an rpcid.ID,
// shaped like go-sdk's own (unexported) decode struct so that decoding it
// does the same work apart from the id.
type wireMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      rpcid.ID        `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

// wireError is a JSON-RPC 2.0 error object.
type wireError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// anyWireMsg is wireMsg with the id decoded into an any, as go-sdk's decode
// struct has it.
type anyWireMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      any             `json:"id,omitempty"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}
