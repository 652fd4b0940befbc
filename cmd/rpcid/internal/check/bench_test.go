package check

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/big"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	capturegen "github.com/rpcid/rpcid/cmd/rpcid/internal/capture"
	"github.com/rpcid/rpcid/internal/testenv"
)

var benchCapture = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	if _, _, err := capturegen.Write(&b, 16e6, 1); err != nil {
		panic(err)
	}
	return b.Bytes()
})

// BenchmarkCheckCapture runs check over 16 MB of ordinary MCP traffic.
func BenchmarkCheckCapture(b *testing.B) {
	data := benchCapture()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if code := run([]string{"-"}, bytes.NewReader(data), io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit status %d", code)
		}
	}
}

// BenchmarkLineReader reads the same capture line by line and does nothing
// else: the floor for any line-oriented checker.
func BenchmarkLineReader(b *testing.B) {
	data := benchCapture()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		br := bufio.NewReaderSize(bytes.NewReader(data), 64<<10)
		n := 0
		for {
			line, err := br.ReadSlice('\n')
			n += len(line)
			if err != nil {
				break
			}
		}
		if n != len(data) {
			b.Fatal(n)
		}
	}
}

// pendingBytes returns the heap bytes per pending request that a session
// holds after n requests that are never answered, with ids made by id.
func pendingBytes(n int, id func(i int) string) float64 {
	c := &checker{w: bufio.NewWriter(io.Discard), otherEvents: map[string]int{}}
	lines := make([][]byte, 0, 1024)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s := newCapture(c, "x")
	for i := 0; i < n; i++ {
		if len(lines) == cap(lines) {
			lines = lines[:0]
		}
		line := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"get_forecast"}}`, id(i))
		lines = append(lines, line)
		s.line(i+1, line)
	}
	lines = nil
	runtime.GC()
	runtime.ReadMemStats(&after)
	if s.t.pending != n {
		panic(fmt.Sprint("pending ", s.t.pending))
	}
	runtime.KeepAlive(s)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

// A pending request costs at most 200 bytes of memory: measured over 1M
// pending requests with RPCID_LONG=1, else over 100k.
func TestPendingMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("holds 100k pending requests")
	}
	n := 100_000
	if testenv.Long() {
		n = 1_000_000
	}
	for _, tt := range []struct {
		name string
		id   func(int) string
		max  float64
	}{
		{"integer ids", func(i int) string { return strconv.Itoa(i) }, 200},
		{"string ids", func(i int) string { return `"req-` + strconv.Itoa(i) + `"` }, 200},
	} {
		got := pendingBytes(n, tt.id)
		t.Logf("%s: %.0f bytes per pending request (%d unanswered)", tt.name, got, n)
		if got > tt.max {
			t.Errorf("%s: %.0f bytes per pending request, want at most %.0f", tt.name, got, tt.max)
		}
	}
}

// BenchmarkPendingMemory reports the memory per pending request
// (bytes/pending) over 1M unanswered requests with integer ids.
func BenchmarkPendingMemory(b *testing.B) {
	var got float64
	for i := 0; i < b.N; i++ {
		got = pendingBytes(1_000_000, strconv.Itoa)
	}
	b.ReportMetric(got, "bytes/pending")
}

// collidingCapture returns n requests whose ids all round to one float64
// (2^72 + i: doubles there are 2^20 apart), then their n responses; or, if
// !colliding, n requests with ids as long that are distinct doubles.
func collidingCapture(n int, colliding bool) []byte {
	base, _ := new(big.Int).SetString("4722366482869645213696", 10) // 2^72
	step := big.NewInt(1)
	if !colliding {
		step = big.NewInt(1 << 21)
	}
	ids := make([]string, n)
	v := new(big.Int).Set(base)
	for i := range ids {
		ids[i] = v.String()
		v.Add(v, step)
	}
	var b bytes.Buffer
	for _, id := range ids {
		fmt.Fprintf(&b, `> {"jsonrpc":"2.0","id":%s,"method":"ping"}`+"\n", id)
	}
	for _, id := range ids {
		fmt.Fprintf(&b, `< {"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", id)
	}
	return b.Bytes()
}

// BenchmarkCollidingIDs checks 160k request ids that share one float64
// beside 160k distinct doubles (within 3x).
func BenchmarkCollidingIDs(b *testing.B) {
	for _, colliding := range []bool{true, false} {
		name := "distinct"
		if colliding {
			name = "colliding"
		}
		data := collidingCapture(160_000, colliding)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				run([]string{"-"}, bytes.NewReader(data), io.Discard, io.Discard)
			}
		})
	}
}

// The lax index keeps each operation O(1) when many pending ids share a
// float64: the colliding ids (160k with RPCID_LONG=1, else 20k) are all
// found and answered.
func TestCollidingIDs(t *testing.T) {
	n := 20_000
	if testenv.Long() {
		n = 160_000
	} else if testing.Short() {
		n = 10_000
	}
	code, out, _ := runCmd(t, bytes.NewReader(collidingCapture(n, true)), "check", "-")
	want := fmt.Sprintf("\nchecked 1 file: %d messages (%d requests, %d responses, 0 notifications); 0 errors, %d warnings. Breaks: %d ids beyond 2^53-1", 2*n, n, n, n, n)
	if code != 1 || !strings.Contains(out, want) || !strings.HasSuffix(out, "rpcid proxy -remap between the client and the hops that lose or change the ids gives each request a small integer id of its own and the answer the client's id.\n") || strings.Count(out, "\n") != n+1 {
		t.Errorf("exit %d, output ends %q, want %q", code, out[max(0, len(out)-300):], want)
	}
}

// benchSSEHAR is a HAR of 2000 tools/call exchanges, each answered with an
// event stream of two events with ids (a progress notification and the
// answer), as go-sdk's Streamable HTTP server writes them.
var benchSSEHAR = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	b.WriteString(`{"log":{"version":"1.2","entries":[`)
	for i := 0; i < 2000; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"x"}}`, i)
		body := fmt.Sprintf("id: %d_0\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":%d,\"progress\":1}}\n\nid: %d_1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hello world\"}]}}\n\n", i, i, i, i)
		fmt.Fprintf(&b, `{"request":{"method":"POST","url":"https://mcp.example.test/mcp","headers":[{"name":"Mcp-Session-Id","value":"s1"}],"postData":{"mimeType":"application/json","text":%q}},"response":{"status":200,"headers":[],"content":{"mimeType":"text/event-stream","text":%q}}}`, req, body)
	}
	b.WriteString(`]}}`)
	return b.Bytes()
})

// BenchmarkCheckHARStreams runs check over benchSSEHAR: the cost of reading
// HAR event streams whose events have ids.
func BenchmarkCheckHARStreams(b *testing.B) {
	data := benchSSEHAR()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if code := run([]string{"-"}, bytes.NewReader(data), io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit status %d", code)
		}
	}
}
