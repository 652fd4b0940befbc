package httpid

import (
	"bytes"
	"io"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readJSONStream reads stream through a streamBody, with reads shaped by
// wrap.
func readJSONStream(t testing.TB, tr *Transport, stream string, wrap func(io.Reader) io.Reader) string {
	t.Helper()
	b := newStreamBody(tr, io.NopCloser(wrap(strings.NewReader(stream))), nil, "", false)
	got, err := io.ReadAll(b)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return string(got)
}

// readLineStream reads stream through a lineBody.
func readLineStream(t testing.TB, tr *Transport, stream string, seq bool, wrap func(io.Reader) io.Reader) string {
	t.Helper()
	b := tr.newLineBody(io.NopCloser(wrap(strings.NewReader(stream))), nil, "", false, seq)
	got, err := io.ReadAll(b)
	if err != nil {
		t.Fatalf("reading: %v", err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return string(got)
}

const v2 = `"jsonrpc":"2.0",`

func TestStreamBody(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name, stream, want string
	}{
		{"one response", `{` + v2 + `"id":"1","result":{}}`, `{` + v2 + `"id":1,"result":{}}`},
		{"pretty-printed", "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": \"1\",\n  \"result\": {\"a\": [1, 2]}\n}\n",
			"{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {\"a\": [1, 2]}\n}\n"},
		{"concatenated texts", `{` + v2 + `"id":"1","result":1}{` + v2 + `"id":"2","result":2}`,
			`{` + v2 + `"id":1,"result":1}{` + v2 + `"id":2,"result":2}`},
		{"lines", "{" + v2 + "\"id\":\"1\",\"result\":1}\r\n{" + v2 + "\"id\":\"x\",\"result\":2}\n",
			"{" + v2 + "\"id\":1,\"result\":1}\r\n{" + v2 + "\"id\":\"x\",\"result\":2}\n"},
		{"batch", `[{` + v2 + `"id":"2","result":2},{` + v2 + `"id":"1","error":{}}]`,
			`[{` + v2 + `"id":2,"result":2},{` + v2 + `"id":1,"error":{}}]`},
		{"brackets and quotes in strings", `{` + v2 + `"result":"}]\"{[\\","id":"1"}`, `{` + v2 + `"result":"}]\"{[\\","id":1}`},
		{"scalars and garbage pass", `5 "x" nope } ] {` + v2 + `"id":"1","result":1}`, `5 "x" nope } ] {` + v2 + `"id":1,"result":1}`},
		{"invalid object passes", `{` + v2 + `"id":"1","result":01}{` + v2 + `"id":"2","result":2}`,
			`{` + v2 + `"id":"1","result":01}{` + v2 + `"id":2,"result":2}`},
		{"not JSON-RPC 2.0", `{"id":"1","result":1}`, `{"id":"1","result":1}`},
		{"too long passes unchanged", `{` + v2 + `"id":"1","result":"` + long + `"}{` + v2 + `"id":"2","result":2}`,
			`{` + v2 + `"id":"1","result":"` + long + `"}{` + v2 + `"id":2,"result":2}`},
		{"unfinished at the end", `{` + v2 + `"id":"2","result":2} {` + v2 + `"id":"1","result":`,
			`{` + v2 + `"id":2,"result":2} {` + v2 + `"id":"1","result":`},
		{"brackets in a string between texts", `"a[" {` + v2 + `"id":"1","result":1} "\"{\\" [{` + v2 + `"id":"2","result":2}]`,
			`"a[" {` + v2 + `"id":1,"result":1} "\"{\\" [{` + v2 + `"id":2,"result":2}]`},
		{"empty", ``, ``},
	}
	for _, tt := range tests {
		for shape, wrap := range readShapes {
			t.Run(tt.name+"/"+shape, func(t *testing.T) {
				tr := pendingTransport(t, 80, `1`, `2`, `"x"`)
				if diff := cmp.Diff(tt.want, readJSONStream(t, tr, tt.stream, wrap)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestLineBody(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name, stream, want string
		seq                bool
	}{
		{"lines", "{" + v2 + "\"id\":\"1\",\"result\":1}\n{" + v2 + "\"id\":\"x\",\"result\":2}\r\n[{" + v2 + "\"id\":\"2\",\"result\":2}]",
			"{" + v2 + "\"id\":1,\"result\":1}\n{" + v2 + "\"id\":\"x\",\"result\":2}\r\n[{" + v2 + "\"id\":2,\"result\":2}]", false},
		{"a line that is not one text passes", "{" + v2 + "\"id\":\"1\",\n\"result\":1}\n", "{" + v2 + "\"id\":\"1\",\n\"result\":1}\n", false},
		{"long line passes", "{" + v2 + "\"id\":\"1\",\"result\":\"" + long + "\"}\n{" + v2 + "\"id\":\"2\",\"result\":2}\n",
			"{" + v2 + "\"id\":\"1\",\"result\":\"" + long + "\"}\n{" + v2 + "\"id\":2,\"result\":2}\n", false},
		{"json-seq records", "\x1e{" + v2 + "\"id\":\"1\",\"result\":1}\n\x1e{" + v2 + "\"id\":\"2\",\"result\":2}\n",
			"\x1e{" + v2 + "\"id\":1,\"result\":1}\n\x1e{" + v2 + "\"id\":2,\"result\":2}\n", true},
		{"record separator outside json-seq", "\x1e{" + v2 + "\"id\":\"1\",\"result\":1}\n", "\x1e{" + v2 + "\"id\":\"1\",\"result\":1}\n", false},
	}
	for _, tt := range tests {
		for shape, wrap := range readShapes {
			t.Run(tt.name+"/"+shape, func(t *testing.T) {
				tr := pendingTransport(t, 80, `1`, `2`, `"x"`)
				if diff := cmp.Diff(tt.want, readLineStream(t, tr, tt.stream, tt.seq, wrap)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}

// FuzzStreamBody checks, for any application/json stream: no panic; with no
// ids pending the stream passes unchanged; how the stream is split into
// reads never changes the result; and only id values change.
func FuzzStreamBody(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":"1","result":1}`, int64(1))
	f.Add("{\n \"jsonrpc\": \"2.0\", \"result\": \"]}\\\"\", \"id\": \"a\"\n}\n[{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{}}]", int64(2))
	f.Add(`x{"jsonrpc":"2.0","id":"2","result":[`+strings.Repeat("1,", 40)+`1]}{"jsonrpc":"2.0","id":1.0,"result":1}`, int64(3))
	// Byte order marks before texts, which pass with the bytes between them.
	f.Add("\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n\xef\xbb\xbf[{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":1}]", int64(4))
	f.Fuzz(func(t *testing.T, stream string, seed int64) {
		if got := readJSONStream(t, &Transport{}, stream, chunks(seed)); got != stream {
			t.Fatalf("with nothing pending: got %q, want %q", got, stream)
		}
		ids := []string{`1`, `"2"`, `"a"`}
		whole := readJSONStream(t, pendingTransport(t, 64, ids...), stream, func(r io.Reader) io.Reader { return r })
		split := readJSONStream(t, pendingTransport(t, 64, ids...), stream, chunks(seed))
		if whole != split {
			t.Fatalf("split reads changed the result:\nwhole %q\nsplit %q", whole, split)
		}
		if got, want := objectEnds(stream, seed), objectEndsSlow(stream); !slices.Equal(got, want) {
			t.Fatalf("objects end at %v, want %v", got, want)
		}
		for _, c := range "\r\n:{}[]," {
			if a, b := strings.Count(stream, string(c)), strings.Count(whole, string(c)); a != b {
				t.Fatalf("%q count changed from %d to %d:\nin  %q\nout %q", c, a, b, stream, whole)
			}
		}
	})
}

// objectEnds returns the offsets in stream just after each top-level object
// or array that streamBody.scan finds, given stream in chunks of 1 to 7
// bytes drawn from seed.
func objectEnds(stream string, seed int64) []int {
	var b streamBody
	var ends []int
	rnd := rand.New(rand.NewSource(seed))
	for off := 0; off < len(stream); {
		p := []byte(stream[off:min(len(stream), off+1+rnd.Intn(7))])
		for len(p) > 0 {
			if !b.in {
				i := bytes.IndexAny(p, "{[")
				if i < 0 {
					off += len(p)
					break
				}
				off += i
				p = p[i:]
				b.in, b.depth, b.str, b.esc = true, 0, false, false
			}
			n, done := b.scan(p)
			off += n
			p = p[n:]
			if done {
				ends = append(ends, off)
				b.in = false
			}
		}
	}
	return ends
}

// objectEndsSlow is objectEnds by the obvious byte-at-a-time state machine.
func objectEndsSlow(stream string) []int {
	var ends []int
	depth, str, esc := 0, false, false
	for i := 0; i < len(stream); i++ {
		c := stream[i]
		switch {
		case str && esc:
			esc = false
		case str && c == '\\':
			esc = true
		case str && c == '"':
			str = false
		case str:
		case depth == 0 && c != '{' && c != '[':
			// between top-level objects and arrays
		case c == '"':
			str = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				ends = append(ends, i+1)
			}
		}
	}
	return ends
}

func TestObjectEnds(t *testing.T) {
	tests := []string{
		`{"a":"b"}`,
		`{"a":"\\"}{"b":"\""}`,
		`{"a":"\\\\\""}]`,
		`x"{"}"{"a":"}"}`,
		`[{"a":["]"]},"\\\\"]  {"x":"y\\\\\\"}`,
		`{"a":"` + strings.Repeat(`\\`, 20) + `"}{}`,
		`{"a":"` + strings.Repeat(`\"`, 20) + `"}[]`,
		`{"unterminated":"\\`,
	}
	for _, s := range tests {
		for seed := range int64(20) {
			if got, want := objectEnds(s, seed), objectEndsSlow(s); !slices.Equal(got, want) {
				t.Errorf("objectEnds(%q, seed %d) = %v, want %v", s, seed, got, want)
			}
		}
	}
}
