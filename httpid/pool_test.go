package httpid

import (
	"fmt"
	"io"
	"math/rand"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
)

// TestPooledBuffers checks that the buffers the streamed bodies take from a
// pool shared by all of them (restore.GetBuf: the output of each, the event
// an eventBody holds) never carry one body's bytes into another's. Bodies
// are read at once by several goroutines, one after another by each, so
// that buffers are taken from the pool while others are given back; each in
// small reads of random sizes with a yield between them, from sources that
// return a few bytes at a time, the last with io.EOF; with texts from a few bytes to past the
// pool's 64 KiB limit and the 16 KiB a Filter reads at a time. Each body
// must come out exactly as it would alone: its own bytes, its own ids
// restored.
func TestPooledBuffers(t *testing.T) {
	const goroutines, rounds, messages = 16, 12, 8
	// Body g's message k answers request g*100+k, sent as a number and
	// received as a string.
	var ids []string
	for g := 0; g < goroutines*rounds; g++ {
		for k := 0; k < messages; k++ {
			ids = append(ids, fmt.Sprint(g*100+k))
		}
	}
	tr := pendingTransport(t, 1<<20, ids...)
	var wg sync.WaitGroup
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				checkPooledBody(t, tr, g*rounds+r, messages)
			}
		}()
	}
	wg.Wait()
	if n := tr.Len(); n != 0 {
		t.Errorf("%d ids still pending, want 0: every response restores one", n)
	}
}

// checkPooledBody reads body g, of messages responses, for
// TestPooledBuffers, and reports how it differs from what it should be.
func checkPooledBody(t *testing.T, tr *Transport, g, messages int) {
	rnd := rand.New(rand.NewSource(int64(g)))
	kind := []string{"event-stream", "json-stream", "lines"}[g%3]
	letter := string(rune('a' + g%26)) // each body's text is of its own letter
	sizes := []int{0, 5, 300, 1500, 17 << 10, 70 << 10}
	var in, want strings.Builder
	for k := 0; k < messages; k++ {
		text := strings.Repeat(letter, sizes[rnd.Intn(len(sizes))])
		msg := func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":{"text":"` + text + `"}}`
		}
		sent := fmt.Sprint(g*100 + k)
		got := `"` + sent + `"`
		switch kind {
		case "event-stream":
			in.WriteString("event: message\ndata: " + msg(got) + "\n\n")
			want.WriteString("event: message\ndata: " + msg(sent) + "\n\n")
		case "json-stream":
			in.WriteString(msg(got) + " ")
			want.WriteString(msg(sent) + " ")
		case "lines":
			in.WriteString(msg(got) + "\n")
			want.WriteString(msg(sent) + "\n")
		}
	}
	// The last bytes come with io.EOF, as from a bytes.Reader read to its
	// end at once: what they become is still to be read when the source
	// has ended.
	src := io.NopCloser(iotest.DataErrReader(&chunkReader{r: strings.NewReader(in.String()), rnd: rand.New(rand.NewSource(int64(g)))}))
	var body io.ReadCloser
	switch kind {
	case "event-stream":
		body = newEventBody(tr, src, nil, "", false)
	case "json-stream":
		body = newStreamBody(tr, src, nil, "", false)
	case "lines":
		body = tr.newLineBody(src, nil, "", false, false)
	}
	// Small reads with a yield between them: other bodies take buffers
	// from the pool while this one still has bytes to give.
	var out []byte
	buf := make([]byte, 64)
	for {
		n, err := body.Read(buf[:1+rnd.Intn(len(buf))])
		out = append(out, buf[:n]...)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Errorf("body %d (%s): %v", g, kind, err)
			return
		}
		runtime.Gosched()
	}
	body.Close()
	if string(out) != want.String() {
		i := 0
		for i < len(out) && i < want.Len() && out[i] == want.String()[i] {
			i++
		}
		t.Errorf("body %d (%s): %d bytes, want %d; first difference at byte %d: got %.40q, want %.40q",
			g, kind, len(out), want.Len(), i, out[i:], want.String()[i:])
	}
}
