package bench

import (
	"encoding/json"
	"testing"

	mcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/internal/testenv"
	segjson "github.com/segmentio/encoding/json"
	sg "github.com/sourcegraph/jsonrpc2"
)

// Package-level sinks keep the compiler from discarding benchmarked work.
var (
	sinkID         rpcid.ID
	sinkErr        error
	sinkOK         bool
	sinkAny        any
	sinkGoSDK      jsonrpc.ID
	sinkMsg        jsonrpc.Message
	sinkMCPGo      mcp.RequestId
	sinkSG         sg.ID
	sinkWireMsg    wireMsg
	sinkAnyWireMsg anyWireMsg
)

// reportCPU starts measuring the CPU time of the process and returns a
// function, to be deferred in a benchmark, that reports it per iteration as
// the metric cpu-ns/op. Unlike ns/op, which is wall-clock time, CPU time
// does not grow while other processes hold the CPU, so ratios stay
// meaningful on a busy machine; it includes the garbage collector's work on
// other threads, a real cost of allocating.
func reportCPU(b *testing.B) func() {
	start := testenv.ProcessCPU()
	return func() {
		if start < 0 || b.N == 0 {
			return
		}
		b.ReportMetric(float64(testenv.ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkID times the decoding of one id from its raw JSON bytes, for each
// input and implementation. Names are BenchmarkID/in=INPUT/impl=IMPL, so
// `benchstat -col /impl` puts the implementations side by side.
//
// Which inputs are errors for which peer is asserted by TestBenchInputs:
// an error path is timed like any other.
func BenchmarkID(b *testing.B) {
	for _, in := range inputs {
		raw := []byte(in.raw)
		b.Run("in="+in.name, func(b *testing.B) {
			// rpcid.Parse: the id alone.
			b.Run("impl=rpcid.Parse", func(b *testing.B) {
				defer reportCPU(b)()
				for b.Loop() {
					sinkID, sinkErr = rpcid.Parse(raw)
				}
			})
			// rpcid.Pending.TakeJSON on a hit: parse, look up and remove.
			// Each iteration adds the id back so the next one hits too,
			// so the time includes one map insert (Add). A null id cannot
			// be added: for it this times a TakeJSON that finds nothing.
			b.Run("impl=rpcid.TakeJSON+Add", func(b *testing.B) {
				var p rpcid.Pending[int]
				id, err := rpcid.Parse(raw)
				if err != nil {
					b.Fatal(err)
				}
				_ = p.Add(id, 1) // fails only for null
				defer reportCPU(b)()
				for b.Loop() {
					sent, v, ok := p.TakeJSON(raw)
					if ok {
						sinkErr = p.Add(sent, v)
					}
					sinkOK = ok
				}
			})
			// go-sdk: segmentio/encoding/json into any + jsonrpc.MakeID,
			// the id step of its DecodeMessage (see gosdkID).
			b.Run("impl=gosdk.MakeID", func(b *testing.B) {
				defer reportCPU(b)()
				for b.Loop() {
					var v any
					sinkErr = segjson.Unmarshal(raw, &v)
					sinkGoSDK, sinkErr = jsonrpc.MakeID(v)
				}
			})
			b.Run("impl=mcpgo.RequestId", func(b *testing.B) {
				defer reportCPU(b)()
				for b.Loop() {
					var id mcp.RequestId
					sinkErr = id.UnmarshalJSON(raw)
					sinkMCPGo = id
				}
			})
			b.Run("impl=sourcegraph.ID", func(b *testing.B) {
				defer reportCPU(b)()
				for b.Loop() {
					var id sg.ID
					sinkErr = id.UnmarshalJSON(raw)
					sinkSG = id
				}
			})
			// Baseline: encoding/json into any.
			b.Run("impl=json.any", func(b *testing.B) {
				defer reportCPU(b)()
				for b.Loop() {
					var v any
					sinkErr = json.Unmarshal(raw, &v)
					sinkAny = v
				}
			})
		})
	}
}

// BenchmarkMessage times the decoding of a whole response message
// {"jsonrpc":"2.0","id":ID,"result":{}}: go-sdk's exported DecodeMessage,
// against a JSON decoder filling wireMsg, whose id is an rpcid.ID, with the
// decoder go-sdk uses (segmentio/encoding/json) and with encoding/json.
//
// DecodeMessage also scans the message for its nesting depth, goes through
// a segmentio json.Decoder (which allocates a 32 KiB read buffer per call)
// and allocates the returned *Response; the rpcid variants decode straight
// into a struct. To separate the id from that overhead, anyid+segjson does
// what DecodeMessage does to the id with the same struct shape and decoder
// but no json.Decoder: segmentio json.Unmarshal into a struct whose id is
// an any, then jsonrpc.MakeID. For a null id DecodeMessage returns an error
// (a response must have an id); the other variants decode it.
func BenchmarkMessage(b *testing.B) {
	for _, in := range inputs {
		msg := message(in.raw)
		b.Run("in="+in.name, func(b *testing.B) {
			b.Run("impl=gosdk.DecodeMessage", func(b *testing.B) {
				defer reportCPU(b)()
				for b.Loop() {
					sinkMsg, sinkErr = jsonrpc.DecodeMessage(msg)
				}
			})
			b.Run("impl=anyid+segjson", func(b *testing.B) {
				defer reportCPU(b)()
				for b.Loop() {
					var m anyWireMsg
					sinkErr = segjson.Unmarshal(msg, &m)
					sinkGoSDK, sinkErr = jsonrpc.MakeID(m.ID)
					sinkAnyWireMsg = m
				}
			})
			b.Run("impl=rpcid+segjson", func(b *testing.B) {
				defer reportCPU(b)()
				for b.Loop() {
					var m wireMsg
					sinkErr = segjson.Unmarshal(msg, &m)
					sinkWireMsg = m
				}
			})
			b.Run("impl=rpcid+encjson", func(b *testing.B) {
				defer reportCPU(b)()
				for b.Loop() {
					var m wireMsg
					sinkErr = json.Unmarshal(msg, &m)
					sinkWireMsg = m
				}
			})
		})
	}
}
