package scan

// BlockPaths returns the names of the ways of checking strings in blocks
// that this processor and build have, fastest first: "avx2" and "ssse3"
// (which also check UTF-8 in blocks) and "sse2" on amd64; none elsewhere.
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
	return paths
}

// UseBlockPath makes Scan check strings in blocks the way named (one of
// BlockPaths) and returns a function that restores the way before, so that
// the benchmarks can measure each in one process.
func UseBlockPath(name string) (restore func()) {
	savedUTF8, savedAVX2 := useUTF8, useAVX2
	useUTF8, useAVX2 = name != "sse2" && canUTF8, name == "avx2" && canAVX2
	return func() { useUTF8, useAVX2 = savedUTF8, savedAVX2 }
}
