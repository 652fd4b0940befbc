package restore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// markJSON is a message function for NewStdioReader that shows which
// messages it was given and changes their length: a JSON text, with
// optional whitespace around it, becomes the text in angle brackets with the
// whitespace kept where it was; anything else is left as it is.
func markJSON(dst, msg []byte) ([]byte, bool) {
	if !json.Valid(msg) {
		return append(dst, msg...), false
	}
	t := bytes.TrimLeft(msg, " \t\r\n")
	lead := msg[:len(msg)-len(t)]
	t = bytes.TrimRight(t, " \t\r\n")
	trail := msg[len(lead)+len(t):]
	dst = append(dst, lead...)
	dst = append(dst, '<')
	dst = append(dst, t...)
	dst = append(dst, '>')
	return append(dst, trail...), true
}

// same is a message function that changes nothing.
func same(dst, msg []byte) ([]byte, bool) {
	return append(dst, msg...), json.Valid(msg)
}

// chunks is a reader that returns its input in reads of the given lengths,
// then the rest in one read.
type chunks struct {
	in   []byte
	lens []int
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.in) == 0 {
		return 0, io.EOF
	}
	n := len(c.in)
	if len(c.lens) > 0 {
		n, c.lens = min(c.lens[0], n), c.lens[1:]
	}
	n = copy(p, c.in[:n])
	c.in = c.in[n:]
	return n, nil
}

func readStdio(t testing.TB, r io.Reader, max int, fn func(dst, msg []byte) ([]byte, bool)) string {
	t.Helper()
	got, err := io.ReadAll(NewStdioReader(r, max, fn))
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}

// framed returns body with an LSP header block.
func framed(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

func TestStdioReader(t *testing.T) {
	pad99 := `{"p":"` + strings.Repeat("x", 99-8) + `"}` // 99 bytes: marked, 101
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		// Newline framing, MCP's stdio transport.
		{"line", `{"a":1}` + "\n", 64, `<{"a":1}>` + "\n"},
		{"lines", "[1]\n{}\n", 64, "<[1]>\n<{}>\n"},
		{"whitespace around a line's text", " \t{\"a\":1} \r\n", 64, " \t<{\"a\":1}> \r\n"},
		{"blank lines", "\n\r\n \n", 64, "\n\r\n \n"},
		{"invalid text passes unchanged", `{"a":}` + "\n", 64, `{"a":}` + "\n"},
		{"two texts on a line", `{"a":1} {"b":2}` + "\n", 64, `<{"a":1}> <{"b":2}>` + "\n"},
		{"texts back to back", `{"a":1}{"b":2}`, 64, `<{"a":1}><{"b":2}>`},
		{"anything else ends the line's texts", `{"a":1} x {"b":2}` + "\n" + `{}`, 64, `<{"a":1}> x {"b":2}` + "\n<{}>"},
		{"an object open at the LF ends there", `{"a":` + "\n" + `{"b":2}` + "\n", 64, `{"a":` + "\n" + `<{"b":2}>` + "\n"},
		{"brackets within strings", `{"a":"}{]["}` + "\n", 64, `<{"a":"}{]["}>` + "\n"},
		{"escaped quotation marks", `{"a":"\"}\\","b":["\\\""]}` + "\n", 64, `<{"a":"\"}\\","b":["\\\""]}>` + "\n"},
		{"complete text without LF", `{"a":1}`, 64, `<{"a":1}>`},
		{"unfinished text at the end", `{"a":1`, 64, `{"a":1`},
		{"lines that are not messages", "hello world\n\"s\"\n5\n]\n", 64, "hello world\n\"s\"\n5\n]\n"},

		// A byte order mark at the start of a line or framed body is
		// passed and skipped (RFC 8259 section 8.1; typescript-sdk#2790,
		// kotlin-sdk#956), one only, and nowhere else.
		{"BOM before a line's text", "\xef\xbb\xbf{\"a\":1}\n\xef\xbb\xbf[2]\n", 64, "\xef\xbb\xbf<{\"a\":1}>\n\xef\xbb\xbf<[2]>\n"},
		{"BOM, spaces, text", "\xef\xbb\xbf \t{}\n", 64, "\xef\xbb\xbf \t<{}>\n"},
		{"BOM without LF", "\xef\xbb\xbf{}", 64, "\xef\xbb\xbf<{}>"},
		{"BOM, text over max", "\xef\xbb\xbf{\"a\":1}\n", 6, "\xef\xbb\xbf{\"a\":1}\n"},
		{"BOM, text of exactly max", "\xef\xbb\xbf{\"a\":1}\n", 7, "\xef\xbb\xbf<{\"a\":1}>\n"},
		{"two BOMs", "\xef\xbb\xbf\xef\xbb\xbf{}\n{}\n", 64, "\xef\xbb\xbf\xef\xbb\xbf{}\n<{}>\n"},
		{"BOM after spaces", " \xef\xbb\xbf{}\n", 64, " \xef\xbb\xbf{}\n"},
		{"BOM after a text", "{}\xef\xbb\xbf{}\n", 64, "<{}>\xef\xbb\xbf{}\n"},
		{"part of a BOM", "\xef\xbb{}\n\xef{}\n\xef\xbb\n{}\n", 64, "\xef\xbb{}\n\xef{}\n\xef\xbb\n<{}>\n"},
		{"part of a BOM at the end", "{}\n\xef\xbb", 64, "<{}>\n\xef\xbb"},
		{"other character in EF", "\xef\xbc\x9b{}\n", 64, "\xef\xbc\x9b{}\n"},
		{"BOM before a framed body", framed("\xef\xbb\xbf{\"a\":1}"), 64, "Content-Length: 12\r\n\r\n\xef\xbb\xbf<{\"a\":1}>"},
		{"BOM, body over max", framed("\xef\xbb\xbf{\"a\":1}") + "{}", 9, framed("\xef\xbb\xbf{\"a\":1}") + "<{}>"},
		{"BOM before a header", "\xef\xbb\xbfContent-Length: 2\r\n\r\n{}\n{}\n", 64, "\xef\xbb\xbfContent-Length: 2\r\n\r\n{}\n<{}>\n"},
		{"BOM before the body after a bad block", "Content-Length: x\r\n\r\n\xef\xbb\xbf{}\n{}\n", 64, "Content-Length: x\r\n\r\n\xef\xbb\xbf{}\n<{}>\n"},
		{"BOM, then a header after a bad block", "Content-Length: x\r\n\r\n\xef\xbb\xbfContent-Length: 2\r\n\r\n{}\n{}\n", 64, "Content-Length: x\r\n\r\n\xef\xbb\xbfContent-Length: 2\r\n\r\n{}\n<{}>\n"},
		{"BOM, LF, then a header after a bad block", "Content-Length: x\r\n\r\n\xef\xbb\xbf\nContent-Length: 2\r\n\r\n{}\n", 64, "Content-Length: x\r\n\r\n\xef\xbb\xbf\nContent-Length: 4\r\n\r\n<{}>\n"},
		{"part of a BOM after a bad block", "Content-Length: x\r\n\r\n\xef\xbb{}\n{}\n", 64, "Content-Length: x\r\n\r\n\xef\xbb{}\n<{}>\n"},
		{"a field-like line waits for the next", "Note: ready\n{}\n", 64, "Note: ready\n<{}>\n"},
		{"message of exactly max bytes", "{\"a\":1}\n", 8, "<{\"a\":1}>\n"},
		{"longer message passes with its line", `{"a":123}{}` + "\n{}\n", 8, `{"a":123}{}` + "\n<{}>\n"},
		{"long line, short text", `{"a":1}` + strings.Repeat(" ", 20) + "\n", 10, `<{"a":1}>` + strings.Repeat(" ", 20) + "\n"},
		{"long line without brackets", strings.Repeat("x", 20) + "\n{}", 10, strings.Repeat("x", 20) + "\n<{}>"},

		// Content-Length framing, LSP's base protocol.
		{"framed", framed(`{"a":1}`), 64, "Content-Length: 9\r\n\r\n" + `<{"a":1}>`},
		{"framed, LF only", "Content-Length: 7\n\n" + `{"a":1}`, 64, "Content-Length: 9\n\n" + `<{"a":1}>`},
		{"framed, Content-Type first, other case",
			"content-type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH:7\r\n\r\n{\"a\":1}", 64,
			"content-type: application/vscode-jsonrpc; charset=utf-8\r\nCONTENT-LENGTH:9\r\n\r\n<{\"a\":1}>"},
		{"spaces around the value and leading zeros kept", "Content-Length: \t007 \r\nX-A: b\r\n\r\n{\"a\":1}", 64,
			"Content-Length: \t9 \r\nX-A: b\r\n\r\n<{\"a\":1}>"},
		{"framed length gains a digit", framed(pad99), 200, "Content-Length: 101\r\n\r\n<" + pad99 + ">"},
		{"body ending in LF", framed(`{"a":1}` + "\n"), 64, "Content-Length: 10\r\n\r\n" + `<{"a":1}>` + "\n"},
		{"body with LFs inside", framed("{\n\"a\": 1\n}\n"), 64, "Content-Length: 13\r\n\r\n<{\n\"a\": 1\n}>\n"},
		{"body that is not JSON passes unchanged", framed(`{"a":}`), 64, framed(`{"a":}`)},
		{"two framed messages", framed(`{}`) + framed(`[]`), 64, framed(`<{}>`) + framed(`<[]>`)},
		{"mixed framings", framed(`{}`) + "{\"b\":1}\n" + framed(`[1]`) + "\n[2]\n", 64,
			framed(`<{}>`) + "<{\"b\":1}>\n" + framed(`<[1]>`) + "\n<[2]>\n"},
		{"empty body", "Content-Length: 0\r\n\r\n{}\n", 64, "Content-Length: 0\r\n\r\n<{}>\n"},
		{"body longer than max passes unexamined", framed(`{"a":"0123456789"}`) + framed(`{}`), 16,
			framed(`{"a":"0123456789"}`) + framed(`<{}>`)},
		{"body of exactly max bytes", framed(`{"a":1}`), 7, "Content-Length: 9\r\n\r\n" + `<{"a":1}>`},
		{"body cut short", "Content-Length: 10\r\n\r\n{\"a\"", 64, "Content-Length: 10\r\n\r\n{\"a\""},
		{"block cut short", "Content-Length: 10\r\n", 64, "Content-Length: 10\r\n"},
		{"field cut short", "Content-Len", 64, "Content-Len"},

		// Malformed blocks pass unchanged, and so does the body after a
		// block with a Content-Length that is not valid framing.
		{"repeated Content-Length", "Content-Length: 7\r\ncontent-length: 7\r\n\r\n{\"a\":1}" + framed(`{}`), 64,
			"Content-Length: 7\r\ncontent-length: 7\r\n\r\n{\"a\":1}" + framed(`<{}>`)},
		{"negative", "Content-Length: -1\r\n\r\n{\"a\":1}\n{}\n", 64, "Content-Length: -1\r\n\r\n{\"a\":1}\n<{}>\n"},
		{"plus sign", "Content-Length: +7\r\n\r\n{\"a\":1}", 64, "Content-Length: +7\r\n\r\n{\"a\":1}"},
		{"hexadecimal", "Content-Length: 0x7\r\n\r\n{\"a\":1}", 64, "Content-Length: 0x7\r\n\r\n{\"a\":1}"},
		{"two numbers", "Content-Length: 7 7\r\n\r\n{\"a\":1}", 64, "Content-Length: 7 7\r\n\r\n{\"a\":1}"},
		{"no value", "Content-Length:\r\n\r\n{\"a\":1}", 64, "Content-Length:\r\n\r\n{\"a\":1}"},
		{"beyond int64", "Content-Length: 9223372036854775808\r\n\r\n{\"a\":1}", 64, "Content-Length: 9223372036854775808\r\n\r\n{\"a\":1}"},
		{"largest int64 streams", "Content-Length: 9223372036854775807\r\n\r\n{\"a\":1}\n{}\n", 64, "Content-Length: 9223372036854775807\r\n\r\n{\"a\":1}\n{}\n"},
		{"space before the colon", "Content-Length : 7\r\n\r\n{\"a\":1}", 64, "Content-Length : 7\r\n\r\n{\"a\":1}"},
		{"body after a bad block spans lines", "Content-Length: x\r\n\r\n{\n\"a\":1}{}", 64, "Content-Length: x\r\n\r\n{\n\"a\":1}<{}>"},
		{"block without Content-Length", "Content-Type: a/b\r\n\r\n{\"a\":1}\n", 64, "Content-Type: a/b\r\n\r\n<{\"a\":1}>\n"},
		// A block that turns out to be none, but holds a Content-Length
		// field: a reader may frame the body by it, so the next object or
		// array passes unchanged (a restored one would not match it).
		{"no empty line", "Content-Length: 7\r\n{\"a\":1}\n", 64, "Content-Length: 7\r\n{\"a\":1}\n"},
		{"control character in a value", "Content-Length: 7\x01\r\n\r\n{\"a\":1}\n", 64, "Content-Length: 7\x01\r\n\r\n{\"a\":1}\n"},
		{"CR inside a value", "Content-Length: 7\r9\r\n\r\n{}\n", 64, "Content-Length: 7\r9\r\n\r\n{}\n"},
		{"CR then text on the empty line", "Content-Length: 7\r\n\r{}\n", 64, "Content-Length: 7\r\n\r{}\n"},
		{"folded line", "Content-Length: 7\r\n x\r\n\r\n{}\n", 64, "Content-Length: 7\r\n x\r\n\r\n{}\n"},
		{"folded line, then a message", "Content-Length: 7\r\n x\r\n\r\n{}\n{}\n", 64, "Content-Length: 7\r\n x\r\n\r\n{}\n<{}>\n"},
		{"field after the block's start", "X-A: 1\r\nContent-Length: 7\r\n\x01\r\n{}\n", 64, "X-A: 1\r\nContent-Length: 7\r\n\x01\r\n{}\n"},
		// Only a line that starts with the field (spaces, tabs and CRs
		// aside) counts: one that mentions the name after other text
		// frames nothing for any reader.
		{"field within a line, then a framed message", "ready Content-Length: 2\r\n" + framed(`{}`) + "{}\n", 64, "ready Content-Length: 2\r\n" + framed(`<{}>`) + "<{}>\n"},
		{"field within a line", "ready Content-Length: 2\r\n\r\n{}\n{}\n", 64, "ready Content-Length: 2\r\n\r\n<{}>\n<{}>\n"},
		{"log line naming the field", "DEBUG Content-Length: 38\n{\"a\":1}\nINFO content-length:2\n{}\n", 64, "DEBUG Content-Length: 38\n<{\"a\":1}>\nINFO content-length:2\n<{}>\n"},
		{"field after a field's value", "header: Content-Length: 38\n{}\n", 64, "header: Content-Length: 38\n<{}>\n"},
		{"field after a message on its line", "{}Content-Length: 2\r\n\r\n{}\n", 64, "<{}>Content-Length: 2\r\n\r\n<{}>\n"},
		{"field after spaces", "  Content-Length: 2\n{}\n{}\n", 64, "  Content-Length: 2\n{}\n<{}>\n"},
		{"field after a tab, spaces before the colon", "\tcontent-length \t: 2\n{}\n{}\n", 64, "\tcontent-length \t: 2\n{}\n<{}>\n"},
		{"field after a CR", "\rContent-Length: 2\n{}\n{}\n", 64, "\rContent-Length: 2\n{}\n<{}>\n"},
		{"name then other text", " Content-Length = 2\n{}\n Content-Lengths: 2\n{}\n", 64, " Content-Length = 2\n<{}>\n Content-Lengths: 2\n<{}>\n"},
		{"name without a colon", "Content-Length 2\n{}\nContent-Length=2\n{}\n", 64, "Content-Length 2\n<{}>\nContent-Length=2\n<{}>\n"},
		{"field name across the block limit", strings.Repeat("X-Log: aaaaaaaaaa\r\n", 215) + "Content-Length: 2\r\n\r\n{}\n", 64,
			strings.Repeat("X-Log: aaaaaaaaaa\r\n", 215) + "Content-Length: 2\r\n\r\n{}\n"},
		{"name with a space", "Content Length: 7\r\n\r\n{}\n", 64, "Content Length: 7\r\n\r\n<{}>\n"},
		{"block longer than 4096 bytes", "X: " + strings.Repeat("a", 4100) + "\r\n" + framed(`{}`), 64,
			"X: " + strings.Repeat("a", 4100) + "\r\n" + framed(`<{}>`)},
	}
	for _, tt := range tests {
		if got := readStdio(t, strings.NewReader(tt.in), tt.max, markJSON); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
			continue
		}
		if got := readStdio(t, iotest.OneByteReader(strings.NewReader(tt.in)), tt.max, markJSON); got != tt.want {
			t.Errorf("%s, one byte reads: got %q, want %q", tt.name, got, tt.want)
		}
		// Every split into two reads: headers and bodies cut at every
		// offset.
		for i := 1; i < len(tt.in) && len(tt.in) < 512; i++ {
			if got := readStdio(t, &chunks{in: []byte(tt.in), lens: []int{i}}, tt.max, markJSON); got != tt.want {
				t.Errorf("%s, split at %d: got %q, want %q", tt.name, i, got, tt.want)
				break
			}
		}
		if got := readStdio(t, strings.NewReader(tt.in), tt.max, same); got != tt.in {
			t.Errorf("%s, nothing changed: got %q, want the input", tt.name, got)
		}
	}
}

// tableFuncs returns the functions rpcid proxy gives NewStdioReader for
// each direction: rec records the request ids of a message in tbl and
// passes it on unchanged, res restores a message's response ids from tbl.
func tableFuncs(t *testing.T, tbl *Table) (rec, res func(dst, msg []byte) ([]byte, bool)) {
	rec = func(dst, msg []byte) ([]byte, bool) {
		_, text, err := tbl.RecordText(msg)
		if err != nil {
			t.Fatal(err)
		}
		return append(dst, msg...), text
	}
	res = func(dst, msg []byte) ([]byte, bool) {
		out, _, text := tbl.AppendRestoredText(dst, msg)
		return out, text
	}
	return rec, res
}

// TestStdioReaderRestores runs the reader with a Table, as rpcid proxy does:
// the id of a framed response is restored and its Content-Length rewritten,
// shorter ("1" to 1, 100 bytes to 98 among them) and longer (1 to "1").
func TestStdioReaderRestores(t *testing.T) {
	tbl := &Table{}
	rec, res := tableFuncs(t, tbl)
	pad := `,"result":{"p":"` + strings.Repeat("x", 100-len(`{"jsonrpc":"2.0","id":"4","result":{"p":""}}`)) + `"}}`
	reqs := framed(`{"jsonrpc":"2.0","id":4,"method":"ping"}`) +
		framed(`{"jsonrpc":"2.0","id":1,"method":"ping"}`) +
		`{"jsonrpc":"2.0","id":"2","method":"ping"}` + "\n" +
		framed(`{"jsonrpc":"2.0","id":3,"method":"ping"}`+"\n")
	if got := readStdio(t, iotest.OneByteReader(strings.NewReader(reqs)), 1<<10, rec); got != reqs {
		t.Fatalf("requests changed: %q", got)
	}
	if n := tbl.Len(); n != 4 {
		t.Fatalf("%d ids recorded, want 4", n)
	}
	resps := framed(`{"jsonrpc":"2.0","id":"4"`+pad) + // 100 bytes, 98 restored
		framed(`{"jsonrpc":"2.0","id":"1","result":{}}`) +
		framed(`{"jsonrpc":"2.0","id":2,"result":{}}`) +
		`{"jsonrpc":"2.0","id":"3","result":{}}`
	want := "Content-Length: 98\r\n\r\n" + `{"jsonrpc":"2.0","id":4` + pad +
		"Content-Length: 36\r\n\r\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` +
		"Content-Length: 38\r\n\r\n" + `{"jsonrpc":"2.0","id":"2","result":{}}` +
		`{"jsonrpc":"2.0","id":3,"result":{}}`
	if got := readStdio(t, iotest.OneByteReader(strings.NewReader(resps)), 1<<10, res); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if st := tbl.Stats(); st.Restored != 4 || tbl.Len() != 0 {
		t.Errorf("restored %d, %d pending; want 4, 0", st.Restored, tbl.Len())
	}
}

// TestStdioReaderBOM runs the reader with a Table both ways on messages
// after a byte order mark, a line's and a framed body's: their ids are
// recorded and restored, and every byte else passes unchanged (the ids of
// such requests were not recorded, and such responses not restored).
func TestStdioReaderBOM(t *testing.T) {
	tbl := &Table{}
	rec, res := tableFuncs(t, tbl)
	reqs := "\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":0,"method":"initialize"}` + "\n" +
		framed("\xef\xbb\xbf"+`{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	if got := readStdio(t, iotest.OneByteReader(strings.NewReader(reqs)), 1<<10, rec); got != reqs {
		t.Fatalf("requests changed: %q", got)
	}
	if n := tbl.Len(); n != 2 {
		t.Fatalf("%d ids recorded, want 2", n)
	}
	resps := "\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":"0","result":{}}` + "\n" +
		framed("\xef\xbb\xbf"+`{"jsonrpc":"2.0","id":"7","result":{}}`)
	want := "\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":0,"result":{}}` + "\n" +
		"Content-Length: 39\r\n\r\n\xef\xbb\xbf" + `{"jsonrpc":"2.0","id":7,"result":{}}`
	if got := readStdio(t, iotest.OneByteReader(strings.NewReader(resps)), 1<<10, res); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if st := tbl.Stats(); st.Restored != 2 || tbl.Len() != 0 {
		t.Errorf("restored %d, %d pending; want 2, 0", st.Restored, tbl.Len())
	}
}

// TestStdioReaderDoesNotWait checks that what is complete is readable at
// once while the source stays open: an object without LF, a framed message,
// and the start of a framed body longer than max.
func TestStdioReaderDoesNotWait(t *testing.T) {
	long := framed(`{"a":"` + strings.Repeat("x", 100) + `"}`)
	for _, tt := range []struct{ name, in, want string }{
		{"text without LF", `{"id":1}`, `<{"id":1}>`},
		{"text and spaces", "{\"id\":1} \r", "<{\"id\":1}> \r"},
		{"two texts", `{"id":1}[2]`, `<{"id":1}><[2]>`},
		{"framed", framed(`{"id":1}`) + "Content-Le", "Content-Length: 10\r\n\r\n" + `<{"id":1}>`},
		{"body longer than max, streamed", long[:60], long[:60]},
		{"line that is not a message", "INFO started", "INFO started"},
	} {
		pr, pw := io.Pipe()
		go pw.Write([]byte(tt.in))
		lr := NewStdioReader(pr, 64, markJSON)
		got := make(chan string, 1)
		go func() {
			buf := make([]byte, 256)
			n, _ := io.ReadAtLeast(lr, buf, len(tt.want))
			got <- string(buf[:n])
		}()
		select {
		case s := <-got:
			if s != tt.want {
				t.Errorf("%s: read %q, want %q", tt.name, s, tt.want)
			}
		case <-time.After(5 * time.Second):
			t.Errorf("%s: %q not readable within 5s while the source stayed open", tt.name, tt.want)
		}
		pw.Close()
	}
}

// TestStdioReaderCutMessage checks that a message that a read brings with
// the start of the next one after it is passed on at once, without waiting
// for a read that ends with a closing bracket (a client that writes a
// request and the start of its next message, then waits for the answer,
// would wait for ever), and that one longer than followAlways waits for
// such a read, as documented.
func TestStdioReaderCutMessage(t *testing.T) {
	for _, c := range []struct {
		name      string
		first     string
		wantFirst string
		at        bool // the first message is readable before the second ends
	}{
		{"short", `{"id":1}`, `<{"id":1}>`, true},
		{"long", `{"id":"` + strings.Repeat("x", followAlways) + `"}`, `<{"id":"` + strings.Repeat("x", followAlways) + `"}>`, false},
	} {
		pr, pw := io.Pipe()
		lr := NewStdioReader(pr, 1<<20, markJSON)
		got := make(chan string, 2)
		go func() {
			buf := make([]byte, len(c.wantFirst))
			n, _ := io.ReadFull(lr, buf)
			got <- string(buf[:n])
			rest := make([]byte, len(` <{"id":2}>`))
			m, _ := io.ReadFull(lr, rest)
			got <- string(rest[:m])
		}()
		go pw.Write([]byte(c.first + ` {"id":`))
		select {
		case s := <-got:
			if !c.at {
				t.Fatalf("%s: read %.40q before the second message ended", c.name, s)
			}
			if s != c.wantFirst {
				t.Errorf("%s: read %.40q, want %.40q", c.name, s, c.wantFirst)
			}
		case <-time.After(100 * time.Millisecond):
			if c.at {
				t.Fatalf("%s: the first message is not readable within 100ms while the second is open", c.name)
			}
		}
		pw.Write([]byte(`2}`))
		if !c.at {
			select {
			case s := <-got:
				if s != c.wantFirst {
					t.Errorf("%s: read %.40q, want %.40q", c.name, s, c.wantFirst)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: nothing readable within 5s after a read ended with a closing bracket", c.name)
			}
		}
		select {
		case s := <-got:
			if s != ` <{"id":2}>` {
				t.Errorf("%s: then read %q", c.name, s)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the second message is not readable within 5s", c.name)
		}
		pw.Close()
	}
}

// TestStdioReaderHoldsNoLongBody checks that a framed body longer than max
// is not held while it streams past.
func TestStdioReaderHoldsNoLongBody(t *testing.T) {
	body := `{"a":"` + strings.Repeat("x", 1<<20) + `"}`
	lr := NewStdioReader(strings.NewReader(framed(body)), 1<<16, markJSON).(*StdioReader)
	buf := make([]byte, 1<<17)
	if _, err := io.ReadFull(lr, buf); err != nil {
		t.Fatal(err)
	}
	if lr.st != stSkip || cap(lr.held) != 0 {
		t.Errorf("state %d, held buffer capacity %d: want passing the body with nothing held", lr.st, cap(lr.held))
	}
}

// A frame is one message of a generated stream, for FuzzStdioFrames.
var frameBodies = []string{
	`{"jsonrpc":"2.0","id":1,"method":"m"}`, `[1,{"b":"}"}]`, `{"s":"\"{["}`, `{}`, `[]`,
	`"str"`, `{"a":}`, `{"a":"\\"}`, "{\n\"a\" : [ 1 ]\n}",
}

// FuzzStdioFrames generates streams of well-formed messages in both
// framings from data, some after a byte order mark, reads them in reads of
// lengths also taken from data, and compares with the output built with the
// stream: every framed message's Content-Length equals its body's length
// after the rewrite.
func FuzzStdioFrames(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte("\x10\x21\x32\x43\x54\x65\x76\x87\x98\xa9"))
	f.Add([]byte("\x08\x09\x0a\x2b\x9c\x4d\x1e\x0f\x00")) // after a byte order mark
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		data = data[:min(len(data), 65)] // up to 64 messages
		max := 8 + int(data[0])
		var in, want strings.Builder
		for _, b := range data[1:] {
			body := frameBodies[int(b&0x0f)%len(frameBodies)]
			mark := "" // a byte order mark before the line or body
			if int(b&0x0f) >= len(frameBodies) {
				mark = "\xef\xbb\xbf"
			}
			if b&0x10 != 0 {
				body += "\n"
			}
			if b&0xc0 == 0 && body[0] != '"' && !strings.Contains(body, "\n") {
				// A line.
				in.WriteString(mark + body + "\n")
				if len(body) <= max {
					m, _ := markJSON(nil, []byte(body))
					body = string(m)
				}
				want.WriteString(mark + body + "\n")
				continue
			}
			eol := "\r\n"
			if b&0x20 != 0 {
				eol = "\n"
			}
			name := "Content-Length"
			if b&0x40 != 0 {
				name = "content-length"
			}
			pre, post := "", ""
			if b&0x80 != 0 {
				pre = "Content-Type: application/vscode-jsonrpc; charset=utf-8" + eol
			} else {
				post = "X-B:" + eol
			}
			out := mark + body
			if len(mark+body) <= max {
				m, _ := markJSON(nil, []byte(body))
				out = mark + string(m)
			}
			body = mark + body
			in.WriteString(pre + name + ": " + strconv.Itoa(len(body)) + eol + post + eol + body)
			want.WriteString(pre + name + ": " + strconv.Itoa(len(out)) + eol + post + eol + out)
		}
		var lens []int
		for _, b := range data {
			lens = append(lens, 1+int(b%32))
		}
		if got := readStdio(t, &chunks{in: []byte(in.String()), lens: lens}, max, markJSON); got != want.String() {
			t.Fatalf("max %d, reads %v:\n in %q\ngot %q\nwant %q", max, lens, in.String(), got, want.String())
		}
	})
}

// FuzzStdioReader checks, on any input, that how the input is split into
// reads never changes the output, that a message function that changes
// nothing and a Table with nothing pending leave the input as it is.
func FuzzStdioReader(f *testing.F) {
	f.Add("{\"a\":1}\n{\"b\":2} {}x\n", 16, int64(1))
	f.Add(framed(`{"a":1}`)+framed("[1]\n")+"Content-Length: 5\r\nContent-Length: 5\r\n\r\n{\"\\\"}{}", 16, int64(2))
	f.Add("Content-Length: 30\r\n\r\n{\"a\":\"0123456789\"}\n"+"Note: x\r\n\r\n[]", 8, int64(3))
	f.Add("{\"a\":\"\\\\\"}[\"]\"]\n\r{\n", 4, int64(4))
	// Byte order marks before lines, a framed body and an unframed one,
	// and bytes that begin one.
	f.Add("\xef\xbb\xbf{\"a\":1}\n\xef\xbb{}\n\xef\xbb\xbf\xef\xbb\xbf[]\n"+framed("\xef\xbb\xbf[1]")+"Content-Length: x\r\n\r\n\xef\xbb\xbf{}\xef", 16, int64(5))
	// Lines that name Content-Length: from their start (spaces aside)
	// or after other text, and a name cut by the block limit.
	f.Add("DEBUG Content-Length: 38\n{\"a\":1}\n \tcontent-length : 2\n{}\n{}\nContent-Length=2\n[]\n", 32, int64(6))
	f.Add(strings.Repeat("X-Log: aaaaaaaaaa\r\n", 215)+"Content-Length : 2\r\n\r\n{}\n{}\n", 64, int64(7))
	f.Fuzz(func(t *testing.T, in string, max int, seed int64) {
		max = 1 + abs(max)%64
		want := readStdio(t, strings.NewReader(in), max, markJSON)
		if got := readStdio(t, iotest.OneByteReader(strings.NewReader(in)), max, markJSON); got != want {
			t.Fatalf("max %d, one byte reads: got %q, want %q", max, got, want)
		}
		rng := rand.New(rand.NewSource(seed))
		var lens []int
		for n := 0; n < len(in); {
			l := 1 + rng.Intn(len(in)-n)
			lens = append(lens, l)
			n += l
		}
		if got := readStdio(t, &chunks{in: []byte(in), lens: lens}, max, markJSON); got != want {
			t.Fatalf("max %d, reads %v: got %q, want %q", max, lens, got, want)
		}
		if got := readStdio(t, &chunks{in: []byte(in), lens: lens}, max, same); got != in {
			t.Fatalf("max %d, nothing changed: got %q", max, got)
		}
		tbl := &Table{}
		res := func(dst, msg []byte) ([]byte, bool) {
			out, _, text := tbl.AppendRestoredText(dst, msg)
			return out, text
		}
		if got := readStdio(t, &chunks{in: []byte(in), lens: lens}, max, res); got != in {
			t.Fatalf("max %d, nothing pending: got %q", max, got)
		}
	})
}

// BenchmarkStdioReader reads 1000 requests and 1000 responses through
// NewStdioReader, side by side with NewLineReader (the newline framing
// alone, which rpcid proxy used before) and with a plain copy: as lines,
// (StdioReader only) Content-Length framed, and one line of 1 MiB, of text
// or an array of small objects, which arrives in many reads: StdioReader
// follows its brackets only where a read ends with a closing bracket (or is
// short), which the array's reads often do.
func BenchmarkStdioReader(b *testing.B) {
	var lines, frames bytes.Buffer
	for i := range 1000 {
		req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":2}}}`, i, i)
		resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":"%d","result":{"content":[{"type":"text","text":"%d"}]}}`, i, i+2)
		lines.WriteString(req + "\n" + resp + "\n")
		frames.WriteString(framed(req) + framed(resp))
	}
	// One response of 1 MiB, a tool result of text: it spans 64 reads.
	big := []byte(`{"jsonrpc":"2.0","id":"1","result":{"content":[{"type":"text","text":"` +
		strings.Repeat("lorem ipsum \\\"dolor\\\" sit amet, ", 1<<20/32) + `"}]}}` + "\n")
	// One response of 1 MiB, an array of small objects.
	var arr bytes.Buffer
	arr.WriteString(`{"jsonrpc":"2.0","id":"1","result":[`)
	for arr.Len() < 1<<20 {
		arr.WriteString(`{"name":"x","value":[1,2,3]},`)
	}
	arr.WriteString("{}]}\n")
	keep := func(dst, msg []byte) []byte { return append(dst, msg...) }
	keepText := func(dst, msg []byte) ([]byte, bool) { return append(dst, msg...), true }
	for _, bb := range []struct {
		name string
		in   []byte
		r    func(io.Reader) io.Reader
	}{
		{"lines/copy", lines.Bytes(), func(r io.Reader) io.Reader { return r }},
		{"lines/LineReader", lines.Bytes(), func(r io.Reader) io.Reader { return NewLineReader(r, 16<<20, keep) }},
		{"lines/StdioReader", lines.Bytes(), func(r io.Reader) io.Reader { return NewStdioReader(r, 16<<20, keepText) }},
		{"framed/StdioReader", frames.Bytes(), func(r io.Reader) io.Reader { return NewStdioReader(r, 16<<20, keepText) }},
		{"1MiB-line/copy", big, func(r io.Reader) io.Reader { return r }},
		{"1MiB-line/LineReader", big, func(r io.Reader) io.Reader { return NewLineReader(r, 16<<20, keep) }},
		{"1MiB-line/StdioReader", big, func(r io.Reader) io.Reader { return NewStdioReader(r, 16<<20, keepText) }},
		{"1MiB-array/LineReader", arr.Bytes(), func(r io.Reader) io.Reader { return NewLineReader(r, 16<<20, keep) }},
		{"1MiB-array/StdioReader", arr.Bytes(), func(r io.Reader) io.Reader { return NewStdioReader(r, 16<<20, keepText) }},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(bb.in)))
			for range b.N {
				io.Copy(io.Discard, struct{ io.Reader }{bb.r(bytes.NewReader(bb.in))})
			}
		})
	}
}

// refBrackets is the obvious byte-by-byte version of StdioReader.brackets,
// from the state depth, str, esc; it returns the state after p when the
// object or array does not close in it.
func refBrackets(p []byte, depth int, str, esc bool) (n int, done bool, _ int, _, _ bool) {
	for i, c := range p {
		switch {
		case esc:
			esc = false
		case c == '\\':
			esc = true
		case str:
			str = c != '"'
		case c == '"':
			str = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return i + 1, true, 0, false, false
			}
		}
	}
	return len(p), false, depth, str, esc
}

// FuzzBrackets compares StdioReader.brackets, which follows 64-byte blocks
// a block at a time, with refBrackets, on dense texts of the bytes that
// matter (each input byte picks one), from any state.
func FuzzBrackets(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x03\x04\x05\x06\x07"), uint8(0))
	f.Add(bytes.Repeat([]byte{2, 0, 5, 5, 0, 1, 3, 6, 4, 5, 5, 5, 0, 6, 7}, 20), uint8(7))
	const alphabet = `{}[]"\a `
	f.Fuzz(func(t *testing.T, in []byte, state uint8) {
		p := make([]byte, len(in))
		for i, b := range in {
			p[i] = alphabet[b%8]
		}
		depth, str, esc := 1+int(state>>2), state&1 != 0, state&2 != 0
		r := &StdioReader{depth: depth, str: str, esc: esc}
		n, done := r.brackets(p)
		wn, wdone, wdepth, wstr, wesc := refBrackets(p, depth, str, esc)
		if n != wn || done != wdone || !done && (r.depth != wdepth || r.str != wstr || r.esc != wesc) {
			t.Fatalf("brackets(%q) from depth %d, str %v, esc %v: %d, %v, depth %d, str %v, esc %v; want %d, %v, depth %d, str %v, esc %v",
				p, depth, str, esc, n, done, r.depth, r.str, r.esc, wn, wdone, wdepth, wstr, wesc)
		}
	})
}
