package conformance

import "github.com/modelcontextprotocol/go-sdk/jsonrpc"

const goSDKHow = "`jsonrpc.DecodeMessage` of the request (sent) and of the response (received), " +
	"then a lookup in a `map[jsonrpc.ID]` as `jsonrpc2.Connection.readIncoming` does in `outgoingCalls`; " +
	"a message DecodeMessage refuses ends the connection's read loop"

// goSDKMatch runs a case through the MCP Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// Exercised: jsonrpc.DecodeMessage (internal/jsonrpc2.DecodeMessage: the
// message is unmarshalled with the id as any, so numbers become float64,
// then jsonrpc2.MakeID makes Int64ID(int64(f)) or StringID(s)), and the
// jsonrpc.ID type as the key of the pending-call map. Connection.Call keeps
// outgoing calls in map[ID]*AsyncCall, and Connection.readIncoming looks a
// *Response up with s.outgoingCalls[msg.ID]; that lookup is rewritten here
// (the Connection is internal), the decoding and the key type are the SDK's.
// A read error (DecodeMessage failing) ends readIncoming and fails every
// pending call: Refused.
func goSDKMatch(sent, received []byte) Outcome {
	msg, err := jsonrpc.DecodeMessage(requestMessage(sent))
	if err != nil {
		return Unsendable
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		return Unsendable
	}
	outgoingCalls := map[jsonrpc.ID]bool{req.ID: true}

	msg, err = jsonrpc.DecodeMessage(responseMessage(received, `{}`))
	if err != nil {
		return Refused
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return Refused
	}
	if outgoingCalls[resp.ID] {
		return Match
	}
	return NoMatch
}
