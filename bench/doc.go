// Package bench compares rpcid with the request id handling of other Go
// JSON-RPC and MCP libraries: github.com/modelcontextprotocol/go-sdk,
// github.com/mark3labs/mcp-go and github.com/sourcegraph/jsonrpc2, with
// encoding/json decoding into any as the baseline.
//
// It is a separate module so that these libraries never become dependencies
// of rpcid itself. The package has no API: everything is in its tests.
//
//   - BenchmarkID times the decoding of one id, given as its raw JSON bytes,
//     by each library, on the same inputs (see the inputs table).
//   - BenchmarkMessage times the decoding of a whole response message
//     {"jsonrpc":"2.0","id":ID,"result":{}} by go-sdk's DecodeMessage and by
//     a JSON decoder filling a struct whose id field is an rpcid.ID, because
//     go-sdk exports no narrower path from bytes to an id.
//   - TestPeerIDTable records, with asserted values, what each library
//     decodes a set of tricky ids to and which pending request each would
//     settle.
//
// Run the comparison from this directory with
//
//	go test -run='^$' -bench . -benchmem -count=10 ./... > peer.txt
//	go run golang.org/x/perf/cmd/benchstat@latest -col /impl peer.txt
package bench
