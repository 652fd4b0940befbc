//go:build !purego

package scan

// haveBlocks reports whether classifyBlocks is fast enough for str to use blocks.
const haveBlocks = true

// classifyBlocks writes the four masks of each 64-byte block of b (len(b) a
// multiple of 64, at most blockBatch blocks) to out, as classifyRef does,
// with SSE2 instructions, which every amd64 processor has.
//
//go:noescape
func classifyBlocks(b []byte, out *[blockBatch * masks]uint64)
