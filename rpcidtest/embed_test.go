package rpcidtest

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "copy ../testdata/vectors.json over the embedded vectors.json")

// The embedded copy must be byte-identical to the module's
// testdata/vectors.json. Refresh it with go generate ./rpcidtest.
func TestEmbeddedVectorsAreCurrent(t *testing.T) {
	src := filepath.Join("..", "testdata", "vectors.json")
	want, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("vectors.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
		vectorsJSON = want
	}
	if !bytes.Equal(vectorsJSON, want) {
		t.Fatalf("rpcidtest/vectors.json differs from %s; run go generate ./rpcidtest", src)
	}
	if got := VectorsJSON(); !bytes.Equal(got, want) {
		t.Fatal("VectorsJSON() differs from the embedded file")
	}
}
