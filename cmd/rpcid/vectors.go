package main

import (
	"errors"
	"fmt"
	"io"
)

func runVectors(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("vectors", "", stderr)
	if code, ok := parseFlags(fs, args); !ok {
		return code
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return 2
	}
	data, err := conformanceVectors()
	if err != nil {
		fmt.Fprintf(stderr, "rpcid vectors: %v\n", err)
		return 2
	}
	if _, err := stdout.Write(data); err != nil {
		fmt.Fprintf(stderr, "rpcid vectors: %v\n", err)
		return 2
	}
	return 0
}

// conformanceVectors returns the conformance vectors file
// (testdata/vectors.json of the module).
//
// TODO: the vectors are to come from package rpcidtest, which embeds a copy
// of that file; until it exists this build has none.
func conformanceVectors() ([]byte, error) {
	return nil, errors.New("this build does not include the conformance vectors (see testdata/vectors.json in the repository)")
}
