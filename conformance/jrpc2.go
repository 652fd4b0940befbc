package conformance

import "github.com/creachadair/jrpc2"

const jrpc2How = "`jrpc2.ParseRequests` (the `jmessages.parseJSON` its `Client.accept` runs) on the request (sent) " +
	"and on the response (received), keyed by the id string as `Client.deliverLocked` keys `pending`"

// jrpc2Match runs a case through creachadair/jrpc2.
//
// Exercised: jrpc2.ParseRequests, which runs jmessages.parseJSON (the
// parser Client.accept uses on every message it receives) and returns each
// message's id as string(fixID(id)), the key Client.deliverLocked looks up
// in c.pending. A parse error makes Client.accept stop the client: Refused.
// A message whose id fails isValidID is marked invalid with no id, so it can
// settle no request: Refused. The client keys its own requests by the id it
// wrote; here the key of the sent id is its parse as a request's id.
func jrpc2Match(sent, received []byte) Outcome {
	reqs, err := jrpc2.ParseRequests(requestMessage(sent))
	if err != nil || len(reqs) != 1 || reqs[0].Error != nil || reqs[0].ID == "" {
		return Unsendable
	}
	pending := map[string]bool{reqs[0].ID: true}

	rsps, err := jrpc2.ParseRequests(responseMessage(received, `{}`))
	if err != nil || len(rsps) != 1 {
		return Refused
	}
	if rsps[0].Error != nil && rsps[0].ID == "" {
		return Refused
	}
	if pending[rsps[0].ID] {
		return Match
	}
	return NoMatch
}
