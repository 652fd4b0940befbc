package httpid

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// readJSONStream reads stream through a streamBody, with reads shaped by
// wrap.
func readJSONStream(t testing.TB, tr *Transport, stream string, wrap func(io.Reader) io.Reader) string {
	t.Helper()
	b := newStreamBody(tr, io.NopCloser(wrap(strings.NewReader(stream))), nil, false)
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
	b := tr.newLineBody(io.NopCloser(wrap(strings.NewReader(stream))), nil, false, seq)
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
		for _, c := range "\r\n:{}[]," {
			if a, b := strings.Count(stream, string(c)), strings.Count(whole, string(c)); a != b {
				t.Fatalf("%q count changed from %d to %d:\nin  %q\nout %q", c, a, b, stream, whole)
			}
		}
	})
}
