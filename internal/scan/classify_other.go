//go:build !amd64 || purego

package scan

// haveBlocks reports whether classifyBlocks is fast enough for str to use blocks:
// not in Go, where str's eight-bytes-a-step loops are faster.
const haveBlocks = false

func classifyBlocks(b []byte, out *[blockBatch * masks]uint64) { classifyRef(b, out[:]) }
