package scan

// BlockPaths returns the names of the ways of checking strings that this
// processor and build have, fastest first: "avx2" and "ssse3" (64-byte
// blocks that also check UTF-8) and "sse2" (64-byte blocks, UTF-8 a
// sequence at a time) on amd64, and everywhere "go", the pure Go path of
// the purego build tag (eight bytes a step).
func BlockPaths() []string {
	var paths []string
	if canAVX2 {
		paths = append(paths, "avx2")
	}
	if canUTF8 {
		paths = append(paths, "ssse3")
	}
	if haveBlocks {
		paths = append(paths, "sse2")
	}
	return append(paths, "go")
}

// UseBlockPath makes Scan check strings the way named (one of BlockPaths),
// with the structural index only for "avx2", as on a processor that has
// no faster way, and returns a function that restores the way before, so that tests and
// benchmarks can compare them in one process.
func UseBlockPath(name string) (restore func()) {
	saved := [4]bool{useBlocks, useUTF8, useAVX2, useIndex}
	useBlocks = name != "go" && haveBlocks
	useAVX2 = name == "avx2" && canAVX2
	useUTF8 = useAVX2 || name == "ssse3" && canUTF8
	useIndex = useAVX2 && canIndex // the structural index needs AVX2 too
	return func() { useBlocks, useUTF8, useAVX2, useIndex = saved[0], saved[1], saved[2], saved[3] }
}

// UseIndex makes Scan check large arrays and objects with the structural
// index (where the processor can) or not, and returns a function that
// restores the way before, for benchmarks that compare them.
func UseIndex(on bool) (restore func()) {
	saved := useIndex
	useIndex = on && canIndex
	return func() { useIndex = saved }
}

// CanIndex512 reports whether stage 1 of the structural index can run
// with AVX-512 here.
var CanIndex512 = canIndex512

// UseIndex512 makes stage 1 of the structural index run with AVX-512
// (where the processor can) or with AVX2, and returns a function that
// restores the way before.
func UseIndex512(on bool) (restore func()) {
	saved := index512
	index512 = on && canIndex512
	return func() { index512 = saved }
}

// UseWalkAsm makes the structural index walk its tokens in assembly (where
// there is a walk in assembly) or with walk compiled from Go, and returns
// a function that restores the way before.
func UseWalkAsm(on bool) (restore func()) {
	saved := walkAsm
	walkAsm = on && canWalkAsm
	return func() { walkAsm = saved }
}
