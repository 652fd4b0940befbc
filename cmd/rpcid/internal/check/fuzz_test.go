package check

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

// FuzzCheck runs check over arbitrary captures, as JSON Lines and wrapped
// in a HAR: it must not panic, every line it prints must be a finding or
// the summary with no unsafe rune, -json must print one valid object per
// finding, and the session's bookkeeping must agree with itself.
func FuzzCheck(f *testing.F) {
	paths, _ := filepath.Glob("testdata/*.jsonl")
	hars, _ := filepath.Glob("testdata/*.har")
	logs, _ := filepath.Glob("testdata/*.log")
	hars = append(hars, logs...)
	for _, p := range append(paths, hars...) {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<16 {
			f.Add(b)
		}
	}
	f.Add([]byte("> {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n> {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"method\":\"a\"}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n< {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":1}\n< {\"jsonrpc\":\"2.0\",\"id\":null,\"result\":1}\n"))
	// VS Code's output log of an MCP server: both formats' markers, an
	// empty message, a restart without an end, a tail header, a line of
	// a stack trace, and the partial Claude Desktop log's restart.
	f.Add([]byte("2026-07-24 02:03:14.089 [debug] [editor -> server] {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n" +
		"2026-07-24 02:03:14.090 [trace] [server -> editor]\n2026-07-24 02:03:14.091 [info] Starting server x\n    at y\n" +
		"==> b.log <==\n2026-07-24 02:03:14.092 [info] [Client Says] {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n" +
		"2026-07-24 02:03:14.093 [info] Connection state: Stopped\n2026-07-24 02:03:14.094 [warning] [Server Says] {\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":1}\n"))
	f.Add([]byte("2025-07-12T05:51:44.601Z [a] [info] Message from client: {\"method\":\"x\",\"jsonrpc\":\"2.0\",\"id\":0}\n" +
		"2025-07-12T05:51:44.602Z [a] [info] Server disconnected.\n2025-07-12T05:51:44.603Z [info] [a] Initializing server...\n" +
		"2025-07-12T05:51:44.604Z [a] [info] Message from server: {\"jsonrpc\":\"2.0\",\"id\":\"0\",\"result\":{}}\n"))
	// A HAR whose entries send one id in turn, answered by their own
	// response bodies and a GET stream (see session.own).
	f.Add([]byte(`{"log":{"entries":[` +
		`{"request":{"method":"POST","url":"http://h/mcp","postData":{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}"}},"response":{"status":202,"content":{}}},` +
		`{"request":{"method":"POST","url":"http://h/mcp","postData":{"mimeType":"application/json","text":"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"b\"},{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"c\"}]"}},"response":{"status":200,"content":{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}"}}},` +
		`{"request":{"method":"GET","url":"http://h/mcp"},"response":{"status":200,"content":{"mimeType":"text/event-stream","text":"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"}}}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out, errOut bytes.Buffer
		code := run([]string{"-"}, bytes.NewReader(data), &out, &errOut)
		if code == 2 {
			// Only a compressed capture that cannot be read to its end
			// (truncated or corrupt: the fuzzer writes zlib headers such
			// as "x\x01") is an unreadable file on standard input.
			if !strings.HasPrefix(errOut.String(), "rpcid check: could not read standard input: the compressed file is ") ||
				!strings.HasSuffix(out.String(), "; 1 file could not be read\n") {
				t.Fatalf("exit status 2: stdout %q, stderr %q", out.String(), errOut.String())
			}
			return
		}
		if code != 0 && code != 1 {
			t.Fatalf("exit status %d", code)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		for i, l := range lines {
			if i == len(lines)-1 {
				if !strings.HasPrefix(l, "checked 1 file: ") {
					t.Fatalf("last line %q is not the summary", l)
				}
			} else if !findingLine.MatchString(l) {
				t.Fatalf("line %q is not a finding", l)
			}
			for _, r := range l {
				if base.UnsafeRune(r) || r == utf8.RuneError && !strings.Contains(string(data), "\uFFFD") && utf8.Valid(data) {
					t.Fatalf("line %q holds %U", l, r)
				}
			}
		}
		var js bytes.Buffer
		run([]string{"-json", "-"}, bytes.NewReader(data), &js, io.Discard)
		if n := len(decodeFindings(t, js.String())); n != len(lines)-1 {
			t.Fatalf("-json printed %d findings, text %d", n, len(lines)-1)
		}

		// The table's own accounting, after the capture.
		c := &checker{w: bufioDiscard(), otherEvents: map[string]int{}}
		s := newCapture(c, "x")
		for i, l := range bytes.Split(data, []byte("\n")) {
			s.line(i+1, l)
		}
		if pending := livePending(s.t); pending != s.t.pending {
			t.Fatalf("%d live unanswered records, pending %d", pending, s.t.pending)
		}
		if err := checkQueues(s.t); err != nil {
			t.Fatal(err)
		}
		for si := range s.t.sides {
			sd := &s.t.sides[si]
			n := 0
			for x := sd.pendHead; x != none; x = s.t.at(x).pendNext {
				if n++; n > len(s.t.slab) {
					t.Fatal("pending list has a cycle")
				}
			}
		}
		s.finish()

		// The same for a HAR, in each of its sessions (retried requests
		// are released, retired ones stay pending until reported).
		if isHAR(bufio.NewReader(bytes.NewReader(data))) {
			s := newCapture(c, "x")
			s.har = true
			if err := (harFormat{s}).read(bufio.NewReader(bytes.NewReader(data))); err != nil {
				t.Fatal(err)
			}
			s.finish()
			for _, p := range s.sessions {
				if pending := livePending(p.t); pending != p.t.pending {
					t.Fatalf("HAR: %d live unanswered records, pending %d", pending, p.t.pending)
				}
				if err := checkQueues(p.t); err != nil {
					t.Fatalf("HAR: %v", err)
				}
			}
		}
	})
}

func bufioDiscard() *bufio.Writer { return bufio.NewWriter(io.Discard) }

// livePending counts the live records of t not answered, which t.pending
// must equal.
func livePending(t *table) int {
	n := 0
	for i := range t.slab {
		if r := &t.slab[i]; r.flags&fLive != 0 && r.flags&fAnswered == 0 {
			n++
		}
	}
	return n
}

// checkQueues checks the queues of requests with Equal ids in t: behind
// each request its sides' indexes hold, the requests queued are pending,
// each links back to the one before it, and the first names the last.
func checkQueues(t *table) error {
	for si := range t.sides {
		sd := &t.sides[si]
		var heads []ref
		for _, x := range sd.ints {
			heads = append(heads, x)
		}
		for _, x := range sd.strs {
			heads = append(heads, x)
		}
		for _, x := range sd.index {
			heads = append(heads, x)
		}
		for _, h := range heads {
			head := t.at(h)
			if head.dupNext == none {
				continue
			}
			prev, n := h, 0
			for x := head.dupNext; x != none; x = t.at(x).dupNext {
				r := t.at(x)
				if r.flags&(fLive|fAnswered) != fLive {
					return fmt.Errorf("request %d queued behind %d is not pending (flags %#x)", x, h, r.flags)
				}
				if r.dupTail != prev {
					return fmt.Errorf("request %d queued behind %d links back to %d, not %d", x, h, r.dupTail, prev)
				}
				if n++; n > len(t.slab) {
					return fmt.Errorf("the queue behind %d has a cycle", h)
				}
				prev = x
			}
			if head.dupTail != prev {
				return fmt.Errorf("request %d names %d the last queued, not %d", h, head.dupTail, prev)
			}
		}
	}
	return nil
}
