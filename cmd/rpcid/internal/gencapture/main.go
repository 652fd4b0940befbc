// Command gencapture writes a synthetic capture of ordinary MCP traffic in
// JSON Lines to standard output, for measuring "rpcid check" beside other
// tools:
//
//	go run ./cmd/rpcid/internal/gencapture -size 200 > /tmp/mcp.jsonl
//	time rpcid check /tmp/mcp.jsonl
//	time jq -c . /tmp/mcp.jsonl > /dev/null
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/capture"
)

func main() {
	size := flag.Int64("size", 200, "size of the capture in MB (10^6 bytes)")
	seed := flag.Uint64("seed", 1, "random seed: the same seed gives the same capture")
	flag.Parse()
	n, msgs, err := capture.Write(os.Stdout, *size*1e6, *seed)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencapture:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "gencapture: %d bytes, %d messages\n", n, msgs)
}
