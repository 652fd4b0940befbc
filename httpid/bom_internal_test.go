package httpid

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const bomText = "\xef\xbb\xbf"

// TestLineBodyBOM checks that a byte order mark at the start of any line of
// a newline-delimited body, and on either side of a json-seq record
// separator, is passed on and the text after it restored, however the
// stream is cut into reads (the mark itself split among them included).
func TestLineBodyBOM(t *testing.T) {
	r1, w1 := `{`+v2+`"id":"1","result":1}`, `{`+v2+`"id":1,"result":1}`
	r2, w2 := `{`+v2+`"id":"2","result":2}`, `{`+v2+`"id":2,"result":2}`
	tests := []struct {
		name, stream, want string
		seq                bool
	}{
		{"first line", bomText + r1 + "\n" + r2 + "\n", bomText + w1 + "\n" + w2 + "\n", false},
		{"every line", bomText + r1 + "\r\n" + bomText + r2, bomText + w1 + "\r\n" + bomText + w2, false},
		{"white space after the mark", bomText + " \t" + r1 + " \r\n", bomText + " \t" + w1 + " \r\n", false},
		{"two marks", bomText + bomText + r1 + "\n" + r2 + "\n", bomText + bomText + r1 + "\n" + w2 + "\n", false},
		{"mark after white space", " " + bomText + r1 + "\n", " " + bomText + r1 + "\n", false},
		{"mark inside the text", `{` + bomText + v2 + `"id":"1","result":1}` + "\n", `{` + bomText + v2 + `"id":"1","result":1}` + "\n", false},
		{"json-seq, before the separator", bomText + "\x1e" + r1 + "\n\x1e" + r2 + "\n", bomText + "\x1e" + w1 + "\n\x1e" + w2 + "\n", true},
		{"json-seq, after the separator", "\x1e" + bomText + r1 + "\n\x1e" + bomText + r2 + "\n", "\x1e" + bomText + w1 + "\n\x1e" + bomText + w2 + "\n", true},
		{"json-seq, both", bomText + "\x1e" + bomText + r1 + "\n", bomText + "\x1e" + bomText + w1 + "\n", true},
		{"separator outside json-seq", bomText + "\x1e" + r1 + "\n", bomText + "\x1e" + r1 + "\n", false},
	}
	for _, tt := range tests {
		for shape, wrap := range readShapes {
			t.Run(tt.name+"/"+shape, func(t *testing.T) {
				tr := pendingTransport(t, 80, `1`, `2`)
				if diff := cmp.Diff(tt.want, readLineStream(t, tr, tt.stream, tt.seq, wrap)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestStreamBodyBOM checks that in a streamed application/json body a byte
// order mark before a text, the first or a later one, passes at once with
// the bytes between texts, and the text after it is restored.
func TestStreamBodyBOM(t *testing.T) {
	stream := bomText + `{` + v2 + `"id":"1","result":1}` + "\n" + bomText + `{` + v2 + `"id":"2","result":2}`
	want := bomText + `{` + v2 + `"id":1,"result":1}` + "\n" + bomText + `{` + v2 + `"id":2,"result":2}`
	for shape, wrap := range readShapes {
		tr := pendingTransport(t, 80, `1`, `2`)
		if diff := cmp.Diff(want, readJSONStream(t, tr, stream, wrap)); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", shape, diff)
		}
	}
}

// restoreString is restoreText on a copy of text, with the ids pending.
func restoreString(t testing.TB, text string, ids ...string) string {
	tr := pendingTransport(t, 1<<20, ids...)
	return string(restoreText(tr.ids().Scope(nil, ""), []byte(text)))
}

// FuzzRestoreText checks restoreText, which restores the application/json
// bodies read whole: no panic; with no ids pending the text passes
// unchanged; and a byte order mark before a text changes nothing but
// itself: the result is the mark followed by what the text alone gives
// (unless the text starts with a mark of its own, when two marks are no
// JSON text and nothing changes).
func FuzzRestoreText(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":"1","result":1}`)
	f.Add(bomText + `{"jsonrpc":"2.0","id":"1","result":1}`)
	f.Add(bomText + bomText + `{"jsonrpc":"2.0","id":"1","result":1}`)
	f.Add(" [{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":1},{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{}}]\n")
	f.Add(`{"jsonrpc":"2.0","id":"\u0061","result":null}`)
	f.Add(`{"jsonrpc":"2.0","id":1.0,"result":"` + bomText + `"}`)
	f.Fuzz(func(t *testing.T, text string) {
		ids := []string{`1`, `"2"`, `"a"`}
		tr := &Transport{}
		if got := string(restoreText(tr.ids().Scope(nil, ""), []byte(text))); got != text {
			t.Fatalf("with nothing pending: got %q, want %q", got, text)
		}
		plain := restoreString(t, text, ids...)
		marked := restoreString(t, bomText+text, ids...)
		want := bomText + plain
		if strings.HasPrefix(text, bomText) {
			want = bomText + text
		}
		if marked != want {
			t.Fatalf("with a mark before it:\ntext   %q\ngot    %q\nwant   %q", text, marked, want)
		}
	})
}

// FuzzLineBody checks, for any newline-delimited body: no panic; with no
// ids pending the body passes unchanged; how it is split into reads never
// changes the result; only id values change; and a byte order mark before
// the body changes nothing but itself, unless the body starts with one.
func FuzzLineBody(f *testing.F) {
	f.Add("{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n", false, int64(1))
	f.Add(bomText+"{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\r\n"+bomText+"[{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":1}]", false, int64(2))
	f.Add(bomText+"\x1e"+bomText+"{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{}}\n\x1e{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}", true, int64(3))
	f.Add(bomText+bomText+"{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n \xef\xbb{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}", false, int64(4))
	f.Fuzz(func(t *testing.T, stream string, seq bool, seed int64) {
		if got := readLineStream(t, &Transport{}, stream, seq, chunks(seed)); got != stream {
			t.Fatalf("with nothing pending: got %q, want %q", got, stream)
		}
		ids := []string{`1`, `"2"`, `"a"`}
		whole := readLineStream(t, pendingTransport(t, 64, ids...), stream, seq, func(r io.Reader) io.Reader { return r })
		split := readLineStream(t, pendingTransport(t, 64, ids...), stream, seq, chunks(seed))
		if whole != split {
			t.Fatalf("split reads changed the result:\nwhole %q\nsplit %q", whole, split)
		}
		for _, c := range "\r\n:{}[],\x1e\xef\xbb\xbf" {
			if a, b := strings.Count(stream, string(c)), strings.Count(whole, string(c)); a != b {
				t.Fatalf("%q count changed from %d to %d:\nin  %q\nout %q", c, a, b, stream, whole)
			}
		}
		if strings.HasPrefix(stream, bomText) || strings.HasPrefix(stream, "\n") {
			return
		}
		// The mark makes the first line 3 bytes longer: a line that fits
		// 64 bytes only without it passes unexamined with it.
		first, _, _ := strings.Cut(stream, "\n")
		if len(first)+1+len(bomText) > 64 {
			return
		}
		marked := readLineStream(t, pendingTransport(t, 64, ids...), bomText+stream, seq, chunks(seed))
		if marked != bomText+whole {
			t.Fatalf("with a mark before it:\nbody %q\ngot  %q\nwant %q", stream, marked, bomText+whole)
		}
	})
}
