package check

import (
	"bytes"
	"fmt"
	"math/big"
	"strings"
	"testing"
)

// A capture of 40,000 requests whose ids are beyond int64, each answered:
// the explanation of what such ids break is printed in full once per
// float64 case (exact, rounded), and every other warning is a short line.
func TestExplainOnceLineLength(t *testing.T) {
	const n = 40000
	var in bytes.Buffer
	id := new(big.Int).Lsh(big.NewInt(1), 64) // 2^64: float64 holds it exactly
	one := big.NewInt(1)
	for range n {
		fmt.Fprintf(&in, "> {\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"tools/call\",\"params\":{\"name\":\"get_weather\"}}\n", id)
		fmt.Fprintf(&in, "< {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n", id)
		id.Add(id, one)
	}
	text := in.Bytes()
	code, out, _ := runCmd(t, bytes.NewReader(text), "check", "-")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 1 || len(lines) != n+1 {
		t.Fatalf("exit %d, %d lines; want 1 and %d warnings and the summary", code, len(lines), n)
	}
	full := 0
	for _, l := range lines[:n] {
		if !strings.Contains(l, " (explained at line ") {
			full++
		}
	}
	// Each line as if the capture were named capture.jsonl, not <stdin>.
	avg := float64(len(out)+(len("capture.jsonl")-len("<stdin>"))*n) / float64(len(lines))
	t.Logf("%d warnings, %d in full; %.1f bytes a line on average", n, full, avg)
	if full != 2 || avg >= 160 {
		t.Errorf("%d warnings in full, %.1f bytes a line on average; want 2 and under 160", full, avg)
	}
	// -json keeps every message in full.
	_, js, _ := runCmd(t, bytes.NewReader(text), "check", "-json", "-")
	if c := strings.Count(js, "explained at"); c != 0 || strings.Count(js, "the TypeScript SDK rejects ids beyond 2^53-1") != n {
		t.Errorf("-json: %d short messages; want every one of %d in full", c, n)
	}
}

// Each capture explains anew: the first such finding of the second file
// is in full.
func TestExplainOncePerFile(t *testing.T) {
	_, out, _ := runCmd(t, nil, "check", "testdata/type-changed.jsonl", "testdata/type-changed.jsonl")
	full := strings.Count(out, "SDKs that compare type and value")
	short := strings.Count(out, "(explained at line 2)")
	if full != 2 || short == 0 {
		t.Errorf("%d in full, %d short; want one in full per file:\n%s", full, short, out)
	}
}
