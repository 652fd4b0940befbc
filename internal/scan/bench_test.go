package scan_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rpcid/rpcid/internal/scan"
)

// Benchmark inputs: MCP messages of the shapes that dominate real traffic.

// sourceText is text like a source file: lines of ASCII with tabs, quotes
// and backslashes that JSON escapes, about one escape every 10 bytes.
func sourceText(n int) string {
	lines := []string{
		"func (s *scanner) value(i, depth int) int {",
		"\tdata := s.data",
		"\tfor {",
		"\t\tswitch c := data[i]; c {",
		"\t\tcase '\"': // a string \"quoted\" and C:\\path",
		"\t\t\ti = s.str(i)",
		"\t\t}",
		"\t}",
		"}",
		"",
		"// A comment line that is longer than the others, as prose in a file is.",
	}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(lines[i%len(lines)])
		b.WriteByte('\n')
	}
	return b.String()[:n]
}

// jsonString returns s as a JSON string (encoding/json's escapes).
func jsonString(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// toolsCallResponse is a tools/call response whose text content makes the
// message about size bytes long.
func toolsCallResponse(size int) []byte {
	head := `{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":`
	tail := `}],"isError":false}}`
	n := size - len(head) - len(tail) - 2
	text := sourceText(n)
	for over := len(jsonString(text)) - n; over > 0; over = len(jsonString(text)) - n {
		text = text[:len(text)-(over+1)/2] // escapes take at most 2 bytes here
	}
	return []byte(head + jsonString(text) + tail)
}

// resourcesReadResponse is a resources/read response: a text resource,
// its URI and MIME type before its text, a source file, which makes the
// message about size bytes long.
func resourcesReadResponse(size int) []byte {
	head := `{"jsonrpc":"2.0","id":42,"result":{"contents":[{"uri":"file:///project/src/scan.go","mimeType":"text/x-go","text":`
	tail := `}]}}`
	n := size - len(head) - len(tail) - 2
	text := sourceText(n)
	for over := len(jsonString(text)) - n; over > 0; over = len(jsonString(text)) - n {
		text = text[:len(text)-(over+1)/2] // escapes take at most 2 bytes here
	}
	return []byte(head + jsonString(text) + tail)
}

// toolsListResponse is a tools/list response: many small members, numbers
// and nested objects rather than long strings, about size bytes long.
func toolsListResponse(size int) []byte {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":"req-7","result":{"tools":[`)
	for i := 0; b.Len() < size-40; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","description":"Reads rows %d to %d of a table.","inputSchema":{"type":"object","properties":{"table":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":%d}},"required":["table"]},"annotations":{"readOnlyHint":true,"idempotentHint":%v}}`,
			i, i*10, i*10+9, 100+i, i%2 == 0)
	}
	b.WriteString(`],"nextCursor":null}}`)
	return []byte(b.String())
}

// run runs f b.N times, reporting the bytes of data per op and the process
// CPU time per op beside the wall time: on a shared machine, time waiting
// for a CPU inflates ns/op but not cpu-ns/op.
func run(b *testing.B, data []byte, f func()) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	start := processCPU()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f()
	}
	b.StopTimer()
	if start >= 0 {
		b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}

// proseResponse is a tools/call response whose text content is prose, an
// escape (a line feed or a quotation mark) every 28 bytes or so.
func proseResponse(size int) []byte {
	head := `{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":`
	tail := `}],"isError":false}}`
	line := `The forecast for Paris: \"light rain\", 12 degrees, wind from the west at 20 km/h.\n`
	var b strings.Builder
	b.WriteString(head + `"`)
	for b.Len() < size-len(tail)-1-len(line) {
		b.WriteString(line)
	}
	b.WriteString(`"` + tail)
	return []byte(b.String())
}

// textResponse is a tools/call response whose text content is line again
// and again, about size bytes long; line is JSON string contents.
func textResponse(line string, size int) []byte {
	head := `{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"`
	tail := `"}],"isError":false}}`
	var b strings.Builder
	b.WriteString(head)
	for b.Len() < size-len(tail)-len(line) {
		b.WriteString(line)
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// Prose in French (an accented letter every 16 bytes or so) and in Japanese
// (three-byte UTF-8 throughout), a line feed escape at each line's end.
const (
	frenchLine   = `Prévisions pour Paris : pluie légère, 12 degrés, vent d'ouest à 20 km/h.\n`
	japaneseLine = `東京の天気予報：小雨、気温十二度、西の風毎時二十キロ。\n`
)

// imageResponse is a tools/call response with image content: about size
// bytes of base64 (RFC 4648 section 4), as MCP carries a PNG, without
// escapes.
func imageResponse(size int) []byte {
	head := `{"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"image","mimeType":"image/png","data":"`
	tail := `"}],"isError":false}}`
	raw := make([]byte, (size-len(head)-len(tail))/4*3)
	for i := range raw {
		raw[i] = byte(i*7 + i>>8)
	}
	return []byte(head + base64.StdEncoding.EncodeToString(raw) + tail)
}

var benchInputs = []struct {
	name string
	data []byte
}{
	{"1KB-prose", proseResponse(1024)},
	{"1MB-prose", proseResponse(1 << 20)},
	{"1KB-tools-call", toolsCallResponse(1024)},
	{"1KB-tools-list", toolsListResponse(1024)},
	{"1KB-resources-read", resourcesReadResponse(1024)},
	{"1MB-tools-call", toolsCallResponse(1 << 20)},
	{"1MB-tools-list", toolsListResponse(1 << 20)},
	{"1KB-french", textResponse(frenchLine, 1024)},
	{"1MB-french", textResponse(frenchLine, 1<<20)},
	{"1MB-japanese", textResponse(japaneseLine, 1<<20)},
	{"1MB-image", imageResponse(1 << 20)},
	// The message around the text of the tools/call inputs, with no text:
	// what a 1 KB response costs besides its text.
	{"envelope", textResponse("", 0)},
}

// tokens counts the tokens of data, a JSON text: strings, numbers,
// literals and the six structural characters (RFC 8259 section 2).
func tokens(data []byte) int {
	n := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			for i++; data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			n++
		case strings.IndexByte("{}[],:", c) >= 0:
			n++
		case strings.IndexByte(" \t\r\n", c) < 0 && (i == 0 || strings.IndexByte(" \t\r\n{}[],:\"", data[i-1]) >= 0):
			n++ // the first byte of a number or literal
		}
	}
	return n
}

func TestBenchInputs(t *testing.T) {
	for _, in := range benchInputs {
		if !json.Valid(in.data) {
			t.Errorf("%s is not valid JSON", in.name)
		}
		msgs, _, err := scan.Scan(nil, in.data)
		if err != nil || len(msgs) != 1 || !msgs[0].IsJSONRPC20(in.data) || msgs[0].ID.End == 0 || msgs[0].Result.End == 0 {
			t.Errorf("%s: Scan = %+v, %v; want one response", in.name, msgs, err)
		}
	}
}

// BenchmarkMessage reads the envelope of each input: Scan beside
// encoding/json decoding only {id, method}, which is what a JSON-RPC client
// built on encoding/json does first to route a message, and json.Valid,
// which only checks the text. Compare with
//
//	benchstat -col /impl bench.txt
func BenchmarkMessage(b *testing.B) {
	for _, in := range benchInputs {
		b.Run("in="+in.name+"/impl=scan", func(b *testing.B) {
			dst := make([]scan.Message, 0, 1)
			run(b, in.data, func() {
				msgs, _, err := scan.Scan(dst, in.data)
				if err != nil || msgs[0].ID.End == 0 {
					b.Fatal(err)
				}
			})
			if strings.Contains(in.name, "tools-list") {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tokens(in.data)), "ns/token")
			}
		})
		b.Run("in="+in.name+"/impl=encoding-json-envelope", func(b *testing.B) {
			run(b, in.data, func() {
				var env struct {
					ID     json.RawMessage
					Method string
				}
				if err := json.Unmarshal(in.data, &env); err != nil || env.ID == nil {
					b.Fatal(err)
				}
			})
		})
		b.Run("in="+in.name+"/impl=json-Valid", func(b *testing.B) {
			run(b, in.data, func() {
				if !json.Valid(in.data) {
					b.Fatal("invalid")
				}
			})
		})
	}
}

// BenchmarkSmallContainers reads texts made of many small arrays and
// objects.
func BenchmarkSmallContainers(b *testing.B) {
	shapes := []struct{ name, text string }{
		{"members-holding-empty-arrays", `{"id":1` + strings.Repeat(`,"a":[]`, 20000) + `}`},
		{"members-holding-small-objects", `{"id":1` + strings.Repeat(`,"a":{"b":1}`, 20000) + `}`},
		{"batch-of-small-requests", "[" + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[1,2],"b":"c"}},`, 2000) + "[1,2]]"},
		{"batch-of-requests-with-20-values", "[" + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"n":14,"o":15,"p":16,"q":17,"r":18}}},`, 2000) + "[1,2]]"},
	}
	dst := make([]scan.Message, 0, 2001)
	for _, sh := range shapes {
		data := []byte(sh.text)
		b.Run("in="+sh.name, func(b *testing.B) {
			run(b, data, func() {
				if _, _, err := scan.Scan(dst, data); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkLinear shows the cost per byte staying flat as the input grows,
// for shapes that make naive scanners slow: deep nesting, long runs of
// escapes, many members, many batch elements, long escaped names.
func BenchmarkLinear(b *testing.B) {
	shapes := []struct {
		name  string
		sizes []int
		gen   func(n int) string
	}{
		{"nesting", []int{100, 9990}, func(n int) string {
			return `{"params":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}`
		}},
		{"surrogate-pairs", []int{1000, 100000}, func(n int) string { return `{"id":"` + strings.Repeat(`\ud83d\ude00`, n) + `"}` }},
		{"non-ASCII", []int{1000, 100000}, func(n int) string { return `{"id":"` + strings.Repeat("é😀", n) + `"}` }},
		{"members", []int{1000, 100000}, func(n int) string { return `{` + strings.Repeat(`"id":1,`, n) + `"id":2}` }},
		{"elements", []int{1000, 100000}, func(n int) string { return `[` + strings.Repeat(`{"ID":1},`, n) + `{}]` }},
		// A token every other byte.
		{"integers", []int{1000, 100000}, func(n int) string { return `{"result":[` + strings.Repeat(`1,`, n) + `1]}` }},
		{"long-names", []int{1000, 100000}, func(n int) string { return `{"` + strings.Repeat(`\u0069`, n) + `":1}` }},
	}
	dst := make([]scan.Message, 0, 100001)
	for _, sh := range shapes {
		for _, n := range sh.sizes {
			data := []byte(sh.gen(n))
			b.Run(fmt.Sprintf("%s/bytes=%d", sh.name, len(data)), func(b *testing.B) {
				run(b, data, func() {
					if _, _, err := scan.Scan(dst, data); err != nil {
						b.Fatal(err)
					}
				})
			})
		}
	}
}

func TestTokens(t *testing.T) {
	for text, want := range map[string]int{
		`{"a":[1,-2.5e3,true,null,"x\"y"]}`: 15,
		` [ ] `:                             2,
		`{"k" : "v" , "n":{}}`:              10,
	} {
		if got := tokens([]byte(text)); got != want {
			t.Errorf("tokens(%q) = %d, want %d", text, got, want)
		}
	}
}
