package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

const sourcegraphHow = "a real `jsonrpc2.Conn` over an in-memory `ObjectStream`: `Request.UnmarshalJSON` of the request (sent), " +
	"`Conn.Call` with `PickID`, the response read by `Conn.readMessages`, then a second response with the id the Conn wrote"

// sourcegraphMatch runs a case through a real sourcegraph/jsonrpc2 Conn.
//
// Exercised: jsonrpc2.Request.UnmarshalJSON gives the sent id (a request
// with a null id is a notification: Unsendable); jsonrpc2.NewConn,
// Conn.Call with PickID(id), which stores the call in Conn.pending and
// writes the request; Conn.readMessages, which decodes each message with
// the stream's ReadObject (anyMessage.UnmarshalJSON, ID.UnmarshalJSON:
// uint64 or string) and looks the response up in Conn.pending. The stream
// then delivers a second response carrying the id exactly as the Conn wrote
// it: Call returning its result means the first response was not matched.
// A decoding error closes the Conn and fails the call: Refused.
func sourcegraphMatch(sent, received []byte) Outcome {
	var req jsonrpc2.Request
	if err := json.Unmarshal(requestMessage(sent), &req); err != nil || req.Notif {
		return Unsendable
	}
	s := &memStream{written: make(chan []byte, 1), reads: make(chan []byte, 2), closed: make(chan struct{})}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn := jsonrpc2.NewConn(ctx, s, noHandler{}, jsonrpc2.SetLogger(log.New(io.Discard, "", 0)))
	defer conn.Close()

	type reply struct {
		result string
		err    error
	}
	done := make(chan reply, 1)
	go func() {
		var result string
		err := conn.Call(ctx, "ping", nil, &result, jsonrpc2.PickID(req.ID))
		done <- reply{result, err}
	}()

	var wrote []byte
	select {
	case wrote = <-s.written:
	case r := <-done:
		if r.err != nil {
			return Unsendable // Call refused the id before writing it
		}
		panic("conformance: sourcegraph Conn.Call returned without writing its request")
	case <-ctx.Done():
		panic("conformance: sourcegraph Conn.Call wrote nothing within 10 s")
	}
	var wire struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(wrote, &wire); err != nil {
		panic("conformance: the request sourcegraph Conn wrote is not JSON: " + err.Error())
	}
	s.reads <- responseMessage(received, `"probe"`)
	s.reads <- responseMessage(wire.ID, `"sentinel"`)

	select {
	case r := <-done:
		switch {
		case r.err != nil:
			return Refused
		case r.result == "probe":
			return Match
		case r.result == "sentinel":
			return NoMatch
		}
		panic("conformance: sourcegraph Conn.Call returned an unexpected result " + r.result)
	case <-ctx.Done():
		panic("conformance: sourcegraph Conn.Call did not return within 10 s")
	}
}

// memStream is a jsonrpc2.ObjectStream in memory: WriteObject hands the
// marshalled message to written, ReadObject decodes the next message from
// reads as the library's codecs do (json decoding into the Conn's message
// type), and returns io.EOF once closed.
type memStream struct {
	written chan []byte
	reads   chan []byte
	closed  chan struct{}
	once    sync.Once
}

func (s *memStream) WriteObject(obj any) error {
	b, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	select {
	case s.written <- b:
		return nil
	default:
		return errors.New("conformance: memStream takes one request")
	}
}

func (s *memStream) ReadObject(v any) error {
	select {
	case b := <-s.reads:
		return json.Unmarshal(b, v)
	case <-s.closed:
		return io.EOF
	}
}

func (s *memStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// noHandler ignores requests from the peer; the cases send none.
type noHandler struct{}

func (noHandler) Handle(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) {}
