package conformance

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/creachadair/jrpc2"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The matchers for mcp-go and jrpc2 repeat the SDKs' lookup around their
// real decoding. These tests check them against the SDKs' real clients,
// which cannot be given an arbitrary sent id for every case but can for
// many: each real client gets the response under test and then a second
// one with the id it wrote, as sourcegraphMatch does. A real client cannot
// tell a refused message from an unmatched one (both leave the request to
// the second response), so Refused in a matcher may be NoMatch here.

// agreesWithReal reports whether a matcher's outcome is what the real
// client did.
func agreesWithReal(matcher, real Outcome) bool {
	return matcher == real || (matcher == Refused && real == NoMatch)
}

// TestMcpGoMatchesRealStdio runs every case with a sendable id through a
// real transport.Stdio (NewIO over pipes): SendRequest with the sent id,
// responses read by its readResponses. Received ids holding a line end are
// left out: the stdio transport frames messages by lines.
func TestMcpGoMatchesRealStdio(t *testing.T) {
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range cases {
		want := mcpGoMatch(c.Sent, c.Received)
		if want == Unsendable || bytes.ContainsAny(c.Received, "\r\n") {
			continue
		}
		got := mcpGoReal(t, c.Sent, c.Received)
		if !agreesWithReal(want, got) {
			t.Errorf("case %d %s: mcpGoMatch says %v, the real Stdio transport %v", c.Index, c.Vector, want, got)
		}
		checked++
	}
	if checked < len(cases)/2 {
		t.Errorf("only %d of %d cases checked against the real transport", checked, len(cases))
	}
	t.Logf("%d cases: mcpGoMatch agrees with mcp-go's real Stdio transport", checked)
}

func mcpGoReal(t *testing.T, sent, received []byte) Outcome {
	var req struct {
		ID *mcp.RequestId `json:"id"`
	}
	if err := json.Unmarshal(requestMessage(sent), &req); err != nil || req.ID == nil {
		t.Fatalf("sent id %s: %v", sent, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	fromServer, toClient := io.Pipe()
	fromClient, toServer := io.Pipe()
	tr := transport.NewIO(fromServer, toServer, io.NopCloser(strings.NewReader("")))
	if err := tr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	go func() {
		line, err := bufio.NewReader(fromClient).ReadBytes('\n')
		if err != nil {
			return
		}
		var wire struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &wire) != nil {
			return
		}
		msgs := append(responseMessage(received, `"probe"`), '\n')
		msgs = append(msgs, responseMessage(wire.ID, `"sentinel"`)...)
		toClient.Write(append(msgs, '\n'))
	}()
	resp, err := tr.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: *req.ID, Method: "ping"})
	switch {
	case err != nil:
		t.Fatalf("sent %s, received %s: SendRequest: %v", sent, received, err)
	case string(resp.Result) == `"probe"`:
		return Match
	case string(resp.Result) == `"sentinel"`:
		return NoMatch
	}
	t.Fatalf("unexpected result %s", resp.Result)
	return 0
}

// TestJrpc2MatchesRealClient runs every case whose sent id is 1, the first
// id a jrpc2.Client sends, through a real Client over channel.Direct.
func TestJrpc2MatchesRealClient(t *testing.T) {
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range cases {
		if string(c.Sent) != "1" {
			continue
		}
		want := jrpc2Match(c.Sent, c.Received)
		got := jrpc2Real(t, c.Received)
		if !agreesWithReal(want, got) {
			t.Errorf("case %d %s: jrpc2Match says %v, the real Client %v", c.Index, c.Vector, want, got)
		}
		checked++
	}
	if checked < 100 {
		t.Errorf("only %d cases with sent id 1 checked against the real Client", checked)
	}
	t.Logf("%d cases: jrpc2Match agrees with a real jrpc2.Client", checked)
}

func jrpc2Real(t *testing.T, received []byte) Outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c2s, s2c := make(chan []byte, 4), make(chan []byte, 4)
	cli := jrpc2.NewClient(bufChannel{send: c2s, recv: s2c}, nil)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		var msg []byte
		select {
		case msg = <-c2s:
		case <-ctx.Done():
			return
		}
		var wire struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(msg, &wire) != nil || string(wire.ID) != "1" {
			t.Errorf("the jrpc2 Client sent %s, want id 1", msg)
			return
		}
		// One batch: Client.accept delivers the messages of one batch in
		// order in one goroutine, while separate messages race. Each
		// element is parsed alone, as a single message would be; a batch
		// that is not JSON stops the Client, as a single message does.
		batch := append([]byte("["), responseMessage(received, `"probe"`)...)
		batch = append(batch, ',')
		batch = append(batch, responseMessage(wire.ID, `"sentinel"`)...)
		s2c <- append(batch, ']') // buffered: never blocks
	}()
	rsp, err := cli.Call(ctx, "ping", nil)
	<-sent
	close(s2c) // the Client reads EOF and stops
	cli.Close()
	if err != nil {
		if ctx.Err() != nil {
			t.Fatalf("received %s: the jrpc2 Client did not answer within 10 s", received)
		}
		return Refused
	}
	var result string
	if err := rsp.UnmarshalResult(&result); err != nil {
		t.Fatalf("received %s: %v", received, err)
	}
	switch result {
	case "probe":
		return Match
	case "sentinel":
		return NoMatch
	}
	t.Fatalf("unexpected result %q", result)
	return 0
}

// bufChannel is a channel.Channel over buffered Go channels, so that the
// test's side never blocks on a Client that has stopped reading.
type bufChannel struct {
	send chan<- []byte
	recv <-chan []byte
}

func (b bufChannel) Send(msg []byte) error { b.send <- msg; return nil }

func (b bufChannel) Recv() ([]byte, error) {
	msg, ok := <-b.recv
	if !ok {
		return nil, io.EOF
	}
	return msg, nil
}

func (b bufChannel) Close() error { return nil } // the test closes recv's channel itself

// TestGoSDKMatchesRealClient runs every case whose sent id is 1 through a
// real go-sdk mcp.Client connected over mcp.IOTransport (pipes): its
// initialize request is the first call of its jsonrpc2 Connection, id 1, and
// its Connection.readIncoming does the lookup.
// The response under test and then a second one with the id it wrote both
// carry an InitializeResult, told apart by serverInfo.name.
func TestGoSDKMatchesRealClient(t *testing.T) {
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, c := range cases {
		if string(c.Sent) != "1" {
			continue
		}
		want := goSDKMatch(c.Sent, c.Received)
		got := goSDKReal(t, c.Received)
		if !agreesWithReal(want, got) {
			t.Errorf("case %d %s: goSDKMatch says %v, the real Client %v", c.Index, c.Vector, want, got)
		}
		checked++
	}
	if checked < 100 {
		t.Errorf("only %d cases with sent id 1 checked against the real Client", checked)
	}
	t.Logf("%d cases: goSDKMatch agrees with a real go-sdk mcp.Client", checked)
}

func goSDKReal(t *testing.T, received []byte) Outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	fromServer, toClient := io.Pipe()
	fromClient, toServer := io.Pipe()
	go func() {
		line, err := bufio.NewReader(fromClient).ReadBytes('\n')
		if err != nil {
			return
		}
		var wire struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &wire) != nil || string(wire.ID) != "1" || wire.Method != "initialize" {
			t.Errorf("the go-sdk Client sent %s first, want initialize with id 1", line)
			toClient.Close()
			return
		}
		result := func(name string) string {
			return `{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"` + name + `","version":"0"}}`
		}
		msgs := append(responseMessage(received, result("probe")), '\n')
		msgs = append(msgs, responseMessage(wire.ID, result("sentinel"))...)
		toClient.Write(append(msgs, '\n'))
		io.Copy(io.Discard, fromClient) // notifications/initialized and anything after
	}()
	client := gosdk.NewClient(&gosdk.Implementation{Name: "conformance", Version: "0"}, nil)
	// Protocol 2025-11-25: the client's first request is initialize (from
	// 2026-07-28 on it is server/discover).
	session, err := client.Connect(ctx, &gosdk.IOTransport{Reader: fromServer, Writer: toServer}, &gosdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		if ctx.Err() != nil {
			t.Fatalf("received %s: the go-sdk Client did not answer within 10 s", received)
		}
		return Refused
	}
	defer session.Close()
	switch name := session.InitializeResult().ServerInfo.Name; name {
	case "probe":
		return Match
	case "sentinel":
		return NoMatch
	default:
		t.Fatalf("unexpected serverInfo.name %q", name)
	}
	return 0
}
