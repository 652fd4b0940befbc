package restore

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// mark is a line function that shows which lines it was given.
func mark(dst, line []byte) []byte {
	dst = append(dst, '<')
	dst = append(dst, line...)
	return append(dst, '>')
}

// refLines is the obvious implementation of NewLineReader on a whole input.
func refLines(in string, max int) string {
	var b strings.Builder
	for len(in) > 0 {
		line := in
		if i := strings.IndexByte(in, '\n'); i >= 0 {
			line = in[:i+1]
		}
		in = in[len(line):]
		if len(line) > max {
			b.WriteString(line)
		} else {
			b.WriteString(string(mark(nil, []byte(line))))
		}
	}
	return b.String()
}

func readLines(t testing.TB, r io.Reader, max int) string {
	t.Helper()
	got, err := io.ReadAll(NewLineReader(r, max, mark))
	if err != nil {
		t.Fatal(err)
	}
	return string(got)
}

func TestLineReader(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"lines", "a\nbc\n", 10, "<a\n><bc\n>"},
		{"last line without LF", "a\nbc", 10, "<a\n><bc>"},
		{"CRLF stays in the line", "a\r\n", 10, "<a\r\n>"},
		{"blank lines", "\n\n", 10, "<\n><\n>"},
		{"line of exactly max bytes", "abc\n", 4, "<abc\n>"},
		{"longer line passes unchanged", "abcd\nx\n", 4, "abcd\n<x\n>"},
		{"long last line", "x\nabcdefgh", 4, "<x\n>abcdefgh"},
		{"empty", "", 4, ""},
	}
	for _, tt := range tests {
		for _, r := range []struct {
			name string
			wrap func(io.Reader) io.Reader
		}{{"whole", func(r io.Reader) io.Reader { return r }}, {"one byte reads", iotest.OneByteReader}} {
			if got := readLines(t, r.wrap(strings.NewReader(tt.in)), tt.max); got != tt.want {
				t.Errorf("%s, %s: got %q, want %q", tt.name, r.name, got, tt.want)
			}
		}
		if got := refLines(tt.in, tt.max); got != tt.want {
			t.Errorf("%s: reference gives %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestLineReaderDoesNotWait checks that a line is readable as soon as its LF
// arrives, while the source stays open.
func TestLineReaderDoesNotWait(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte("{\"id\":1}\n{\"id\":"))
	lr := NewLineReader(pr, 1<<20, mark)
	got := make(chan string, 1)
	go func() {
		buf := make([]byte, 64)
		n, _ := lr.Read(buf)
		got <- string(buf[:n])
	}()
	select {
	case s := <-got:
		if s != "<{\"id\":1}\n>" {
			t.Errorf("first read %q, want the first line", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the first line was not readable within 5s while the source stayed open")
	}
}

// TestLineReaderLongLineStreams checks that a line longer than max is passed
// on as it arrives, before its end.
func TestLineReaderLongLineStreams(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write(bytes.Repeat([]byte("x"), 100))
	lr := NewLineReader(pr, 10, mark)
	buf := make([]byte, 1000)
	done := make(chan int, 1)
	go func() {
		n, _ := io.ReadAtLeast(lr, buf, 100)
		done <- n
	}()
	select {
	case n := <-done:
		if string(buf[:n]) != strings.Repeat("x", 100) {
			t.Errorf("read %q", buf[:n])
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a long line was held back")
	}
}

func FuzzLineReader(f *testing.F) {
	f.Add("a\nbb\nccc\n", 2, int64(1))
	f.Add("\r\n\n\nxyz", 1, int64(2))
	f.Fuzz(func(t *testing.T, in string, max int, seed int64) {
		max = 1 + abs(max)%64
		want := refLines(in, max)
		if got := readLines(t, strings.NewReader(in), max); got != want {
			t.Fatalf("max %d: got %q, want %q", max, got, want)
		}
		if got := readLines(t, iotest.OneByteReader(strings.NewReader(in)), max); got != want {
			t.Fatalf("max %d, one byte reads: got %q, want %q", max, got, want)
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -(n + 1)
	}
	return n
}

// TestLineReaderLetsGoOfLongLine checks that the buffer of a line that
// outgrew max is not held while the rest of the line streams past.
func TestLineReaderLetsGoOfLongLine(t *testing.T) {
	lr := NewLineReader(strings.NewReader(strings.Repeat("x", 1<<20)), 1<<18, mark).(*LineReader)
	buf := make([]byte, 1<<16)
	if _, err := io.ReadFull(lr, buf); err != nil {
		t.Fatal(err)
	}
	if !lr.passing || cap(lr.line) != 0 {
		t.Errorf("passing %v, line buffer capacity %d: want passing with no line buffer", lr.passing, cap(lr.line))
	}
}
