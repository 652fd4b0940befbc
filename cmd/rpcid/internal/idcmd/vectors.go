package idcmd

import (
	"fmt"
	"io"

	"github.com/rpcid/rpcid/rpcidtest"
)

func runVectors(args []string, stdout, stderr io.Writer) int {
	fs := Vectors.NewFlags(stderr)
	if code, ok := Vectors.ParseFlags(fs, args, stdout); !ok {
		return code
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return 2
	}
	if _, err := stdout.Write(rpcidtest.VectorsJSON()); err != nil {
		fmt.Fprintf(stderr, "rpcid vectors: %v\n", err)
		return 2
	}
	return 0
}
