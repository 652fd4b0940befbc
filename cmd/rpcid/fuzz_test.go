package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
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
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		code := run([]string{"check", "-"}, bytes.NewReader(data), &out, io.Discard)
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
				if unsafeRune(r) || r == utf8.RuneError && !strings.Contains(string(data), "\uFFFD") && utf8.Valid(data) {
					t.Fatalf("line %q holds %U", l, r)
				}
			}
		}
		var js bytes.Buffer
		run([]string{"check", "-json", "-"}, bytes.NewReader(data), &js, io.Discard)
		if n := len(decodeFindings(t, js.String())); n != len(lines)-1 {
			t.Fatalf("-json printed %d findings, text %d", n, len(lines)-1)
		}

		// The table's own accounting, after the capture.
		c := &checker{w: bufioDiscard(), otherEvents: map[string]int{}}
		s := newSession(c, "x")
		for i, l := range bytes.Split(data, []byte("\n")) {
			s.line(i+1, l)
		}
		pending := 0
		for i := range s.t.slab {
			if r := &s.t.slab[i]; r.flags&fLive != 0 && r.flags&fAnswered == 0 {
				pending++
			}
		}
		if pending != s.t.pending {
			t.Fatalf("%d live unanswered records, pending %d", pending, s.t.pending)
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
			s := newSession(c, "x")
			s.har = true
			if err := s.readHAR(bufio.NewReader(bytes.NewReader(data))); err != nil {
				t.Fatal(err)
			}
			s.finish()
			for _, p := range s.parts {
				pending := 0
				for i := range p.t.slab {
					if r := &p.t.slab[i]; r.flags&fLive != 0 && r.flags&fAnswered == 0 {
						pending++
					}
				}
				if pending != p.t.pending {
					t.Fatalf("HAR: %d live unanswered records, pending %d", pending, p.t.pending)
				}
			}
		}
	})
}

func bufioDiscard() *bufio.Writer { return bufio.NewWriter(io.Discard) }
