package idcmd

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// vectors prints the module's conformance vectors file byte for byte.
func TestVectors(t *testing.T) {
	want, err := os.ReadFile("../../../../rpcidtest/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, nil, "vectors")
	if code != 0 || errOut != "" {
		t.Fatalf("vectors = %d, stderr %q", code, errOut)
	}
	if !bytes.Equal([]byte(out), want) {
		t.Errorf("vectors printed %d bytes that differ from rpcidtest/vectors.json (%d bytes)", len(out), len(want))
	}
	if !json.Valid([]byte(out)) {
		t.Errorf("vectors output is not JSON")
	}
	if code, _, _ := runCmd(t, nil, "vectors", "extra"); code != 2 {
		t.Errorf("vectors extra = %d, want 2", code)
	}
}
