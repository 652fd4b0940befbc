//go:build !amd64 || purego

package scan

// haveBlocks reports whether classifyBlocks is fast enough for str to use blocks:
// not in Go, where str's eight-bytes-a-step loops are faster.
const haveBlocks = false

// useBlocks reports whether str uses blocks: never here but in tests.
var useBlocks = haveBlocks

// canUTF8 reports whether classifyUTF8 can check UTF-8 in assembly: never
// here.
const canUTF8 = false

// useUTF8 reports whether classifyUTF8 checks UTF-8 too, in Go. Tests set
// it to try both paths of blocks.
var useUTF8 = false

func classifyBlocks(b []byte, out *[blockBatch * masks]uint64) { classifyRef(b, out[:]) }

// classifyUTF8 is as on amd64, in Go: classifyUTF8Ref where useUTF8 is
// set, else classifyRef and no block with an error.
func classifyUTF8(b []byte, out *[blockBatch * masks]uint64, prev *[16]byte) uint64 {
	if useUTF8 {
		return classifyUTF8Ref(b, out[:], prev)
	}
	classifyRef(b, out[:])
	return 0
}

// canAVX2 and useAVX2 are as on amd64: never here.
const canAVX2 = false

var useAVX2 = false

// stringBlocksAVX2 is as on amd64, in Go.
func stringBlocksAVX2(b []byte, carry uint64, prev *[16]byte) (k int, stop, esc, cin, cout uint64, bad bool) {
	return stringBlocksRef(b, carry, prev)
}

// canIndex reports whether indexBlocksAVX2 can run: never here.
const canIndex = false

// useIndex reports whether value checks large arrays and objects with the
// structural index: never here but in tests, since indexRef, in Go, is
// slower than value. indexAVX2 is as on amd64: never here.
var useIndex, indexAVX2 = false, false

// indexBlocksAVX2 is as on amd64, in Go.
func indexBlocksAVX2(b []byte, st *indexState, out *[maskCap]uint64) (done, n int, bad, long bool) {
	return indexRef(b, st, out)
}

// canIndex512 and index512 are as on amd64: never here.
const canIndex512 = false

var index512 = false

// indexBlocksAVX512 is as on amd64, in Go.
func indexBlocksAVX512(b []byte, st *indexState, out *[maskCap]uint64) (done, n int, bad, long bool) {
	return indexRef(b, st, out)
}

// indexBlocks is stage 1 of the structural index: indexRef here.
func indexBlocks(b []byte, st *indexState, out *[maskCap]uint64) (done, n int, bad, long bool) {
	return indexRef(b, st, out)
}

// quotes128 returns the number of quotation marks in b.
func quotes128(b *[128]byte) int { return quotes128Go(b) }
