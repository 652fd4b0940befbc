//go:build !purego

package scan

import (
	"math/bits"
	"os"
)

// haveBlocks reports whether classifyBlocks is fast enough for str to use blocks.
const haveBlocks = true

// useBlocks reports whether str uses blocks: where they are fast. Tests set
// it to false to try the pure Go path, which the purego build tag keeps.
var useBlocks = haveBlocks

// classifyBlocks writes the four masks of each 64-byte block of b (len(b) a
// multiple of 64, at most blockBatch blocks) to out, as classifyRef does,
// with SSE2 instructions, which every amd64 processor has.
//
//go:noescape
func classifyBlocks(b []byte, out *[blockBatch * masks]uint64)

// classifyBlocksUTF8 is classifyBlocks that also checks UTF-8, as
// classifyUTF8Ref does, with SSSE3 instructions.
//
//go:noescape
func classifyBlocksUTF8(b []byte, out *[blockBatch * masks]uint64, prev *[16]byte) (bad uint64)

// cpuidSSSE3 reports whether the processor has SSSE3.
func cpuidSSSE3() bool

// cpuidAVX2 reports whether the processor has AVX2 and the operating
// system keeps its registers.
func cpuidAVX2() bool

// canAVX2 reports whether stringBlocksAVX2 can run: Intel's since Haswell
// (2013) but for some Pentium, Celeron and Atom models, AMD's since
// Excavator (2015). GODEBUG=cpu.avx2=off turns it off. useAVX2 reports
// whether blocks uses it; tests and benchmarks set it to false to try
// classifyBlocksUTF8.
var canAVX2 = cpuidAVX2() && cpuOn(os.Getenv("GODEBUG"), "avx2")

var useAVX2 = canAVX2

// canUTF8 reports whether the processor has SSSE3, which
// classifyBlocksUTF8 needs: Intel's since the Core 2 (2006), AMD's since
// Bobcat and Bulldozer (2011). GODEBUG=cpu.ssse3=off turns it off.
var canUTF8 = cpuidSSSE3() && cpuOn(os.Getenv("GODEBUG"), "ssse3")

// useUTF8 reports whether classifyUTF8 checks UTF-8 too: where the
// processor can. Tests set it to false to try the other path.
var useUTF8 = canUTF8 || canAVX2

// classifyUTF8 writes the masks of the blocks of b to out, and returns the set
// of blocks with an error of UTF-8 that ends in them (bit k for block k),
// prev holding the 16 bytes before b, as classifyUTF8Ref does; where the
// processor cannot check UTF-8 in blocks, it writes the masks of
// classifyRef and returns 0.
func classifyUTF8(b []byte, out *[blockBatch * masks]uint64, prev *[16]byte) uint64 {
	if useUTF8 {
		return classifyBlocksUTF8(b, out, prev)
	}
	classifyBlocks(b, out)
	return 0
}

// stringBlocksAVX2 is the loop of blocksAVX2 over the 64-byte blocks of b
// (len(b) a multiple of 64, at least 64), a string's contents: it returns
// at the first block with an error of UTF-8 that ends in it (bad) or a
// byte blocksAVX2 must look at (stop), k being its offset in b, esc its
// escaped bytes, cin the carry into it and cout the carry out of it; or
// with k = len(b) and cout the carry out of the last block. carry is 1 if
// the first byte of b is escaped; prev holds the 16 bytes before b.
//
//go:noescape
func stringBlocksAVX2(b []byte, carry uint64, prev *[16]byte) (k int, stop, esc, cin, cout uint64, bad bool)

// indexBlocksAVX2 is stage 1 of the structural index, as indexRef computes
// it, with AVX2: see classify_amd64.s.
//
//go:noescape
func indexBlocksAVX2(b []byte, st *indexState, out *[maskCap]uint64) (done, n int, bad, long bool)

// cpuidIndex reports whether the processor has PCLMULQDQ, which
// indexBlocksAVX2 uses beside AVX2: every processor with AVX2 that Intel
// and AMD have made.
func cpuidIndex() bool

// canIndex reports whether indexBlocksAVX2 can run.
var canIndex = canAVX2 && cpuidIndex()

// useIndex reports whether value checks large arrays and objects with the
// structural index (container): where indexBlocksAVX2 can run. indexAVX2
// reports whether stage 1 runs in assembly; tests set it to false, and
// useIndex to true, to try stage 2 on indexRef.
var useIndex, indexAVX2 = canIndex, canIndex

// indexBlocksAVX512 is indexBlocksAVX2 with AVX-512: see classify_amd64.s.
//
//go:noescape
func indexBlocksAVX512(b []byte, st *indexState, out *[maskCap]uint64) (done, n int, bad, long bool)

// cpuidAVX512 reports whether the processor has AVX-512 F, BW and VBMI2
// and the operating system keeps their registers.
func cpuidAVX512() bool

// canIndex512 reports whether indexBlocksAVX512 runs: where the processor
// has AVX-512 F and BW, which it uses, and VBMI2, which it does not use
// but which Intel's processors with AVX-512 have from Ice Lake (2019) on
// and AMD's from Zen 4 (2022) on. That leaves Skylake-SP, Cascade Lake and Cooper Lake,
// whose clock drops while 512-bit instructions run (slowing the rest of
// the program with them), on indexBlocksAVX2, as simdjson leaves them on
// its AVX2 kernel (its AVX-512 one needs VBMI2:
// include/simdjson/icelake/implementation.h). GODEBUG=cpu.avx512f=off or
// cpu.avx512bw=off turns it off. index512 reports whether indexBlocks
// uses it; tests and benchmarks set it to false to try indexBlocksAVX2.
var canIndex512 = canIndex && cpuidAVX512() && cpuOn(os.Getenv("GODEBUG"), "avx512f") && cpuOn(os.Getenv("GODEBUG"), "avx512bw")

var index512 = canIndex512

// indexBlocks is stage 1 of the structural index: indexBlocksAVX512 or
// indexBlocksAVX2 where indexAVX2 is set (the first where index512 is
// too), else indexRef.
func indexBlocks(b []byte, st *indexState, out *[maskCap]uint64) (done, n int, bad, long bool) {
	if indexAVX2 {
		if index512 {
			return indexBlocksAVX512(b, st, out)
		}
		return indexBlocksAVX2(b, st, out)
	}
	return indexRef(b, st, out)
}

// quotes128 returns the number of quotation marks in b: with AVX2 where
// the processor has it (the structural index, which loneValue counts them
// for, needs it too), else in Go.
func quotes128(b *[128]byte) int {
	if canAVX2 {
		lo, hi := quotes128AVX2(b)
		return bits.OnesCount64(lo) + bits.OnesCount64(hi)
	}
	return quotes128Go(b)
}

// quotes128AVX2 is quotes128 with AVX2: see classify_amd64.s.
//
//go:noescape
func quotes128AVX2(b *[128]byte) (lo, hi uint64)
