package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The stdio servers that the test binary runs as when serverEnv names them.
// Each writes its messages to standard output, one per line, and its log to
// standard error.
var servers = map[string]func() int{
	"stringify": stringifyServer,
	"raw":       rawServer,
	"wait":      waitServer,
	"long":      longServer,
}

func runServer(name string) int {
	f, ok := servers[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "interop-server: unknown server %q\n", name)
		return 2
	}
	return f()
}

// changedMarker starts each line a stdio server writes to standard error when
// it has changed an id.
const changedMarker = "interop-server: changed id"

// stringifyServer is the go-sdk MCP server of newMCPServer on stdio, with
// each numeric id in its output turned into a string, as a stdio bridge that
// re-encodes ids would do. It logs each change to standard error, starting
// with changedMarker.
func stringifyServer() int {
	pr, pw := io.Pipe()
	rw := newRewriter(func(raw json.RawMessage) json.RawMessage {
		nv := stringify(raw)
		if !bytes.Equal(nv, raw) {
			fmt.Fprintf(os.Stderr, "%s %s to %s\n", changedMarker, raw, nv)
		}
		return nv
	})
	copied := make(chan error, 1)
	go func() {
		br := bufio.NewReader(pr)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				out := append(rw.changeIDs(bytes.TrimSuffix(line, []byte("\n"))), '\n')
				if _, werr := os.Stdout.Write(out); werr != nil {
					pr.CloseWithError(werr)
					copied <- werr
					return
				}
			}
			if err != nil {
				copied <- nil
				return
			}
		}
	}()
	err := newWaitServer(nil).Run(context.Background(), &mcp.IOTransport{Reader: os.Stdin, Writer: pw})
	pw.Close()
	if cerr := <-copied; err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "interop-server: %v\n", err)
		return 1
	}
	return 0
}

// rawServer plays stdioScript: for each step it reads one line and checks
// that it is the step's request, then writes the step's reply as the server
// sends it. At the end of its input it exits with rawServerExit.
func rawServer() int {
	br := bufio.NewReader(os.Stdin)
	for i, st := range stdioScript(false) {
		line, err := br.ReadString('\n')
		if err != nil {
			fmt.Fprintf(os.Stderr, "interop-server: step %d: reading the request: %v\n", i+1, err)
			return 1
		}
		if line != st.request+"\n" {
			fmt.Fprintf(os.Stderr, "interop-server: step %d: request %q, want %q\n", i+1, line, st.request+"\n")
			return 1
		}
		if _, err := os.Stdout.Write(st.reply.sent); err != nil {
			fmt.Fprintf(os.Stderr, "interop-server: step %d: %v\n", i+1, err)
			return 1
		}
	}
	if _, err := br.ReadByte(); err != io.EOF {
		fmt.Fprintf(os.Stderr, "interop-server: more input after the script (%v)\n", err)
		return 1
	}
	return rawServerExit
}

// rawServerExit is the exit status of rawServer after a complete script; the
// proxy must exit with it.
const rawServerExit = 3

// A wire is a byte string as a server sends it (sent) and as the client must
// receive it through the proxy (want). The two are built side by side, piece
// by piece: the proxy may change only the pieces added with id.
type wire struct{ sent, want []byte }

// raw appends bytes that must arrive unchanged.
func (w *wire) raw(s ...string) *wire {
	for _, p := range s {
		w.sent = append(w.sent, p...)
		w.want = append(w.want, p...)
	}
	return w
}

// id appends an id as the server sends it and as the client must receive it.
func (w *wire) id(sent, want string) *wire {
	w.sent = append(w.sent, sent...)
	w.want = append(w.want, want...)
	return w
}

// big is the payload of the messages larger than the proxy's default
// message size limit (16 MiB, httpid.DefaultMaxMessageSize): 20 MiB of 'x'.
var big = sync.OnceValue(func() string { return strings.Repeat("x", 20<<20) })

// firstDiff describes where got and want first differ, without printing
// megabytes.
func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	clip := func(b []byte) string {
		lo, hi := max(0, i-40), min(len(b), i+40)
		return fmt.Sprintf("%q", b[lo:hi])
	}
	return fmt.Sprintf("got %d bytes, want %d; first difference at byte %d: got …%s…, want …%s…", len(got), len(want), i, clip(got), clip(want))
}

// startMCP starts a go-sdk MCP server in mode m on 127.0.0.1 with the
// streamable HTTP transport at path /mcp, and returns it.
func startMCP(t *testing.T, m mode) *httptest.Server {
	t.Helper()
	s := newMCPServer()
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: m.stateless, JSONResponse: m.json}))
	return startHTTP(t, mux)
}

// readyLine is what waitServer writes to standard error once it runs.
const readyLine = "interop-server: ready"

// waitServer writes readyLine to standard error and reads its standard input
// to the end, then exits with status 0. It installs no signal handlers, so
// SIGINT, SIGTERM and SIGHUP end it as signals.
func waitServer() int {
	fmt.Fprintln(os.Stderr, readyLine)
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// Parts of the long line of longServer: longHead and 1 MiB of 'x', then
// after the client's "go" line 19 MiB of 'x' and longTail; then longNext.
const (
	longHead = `{"jsonrpc":"2.0","id":"1","result":"`
	longTail = `"}` + "\n"
	longNext = `{"jsonrpc":"2.0","id":"1","result":"short"}` + "\n"
)

// longServer reads one request line, writes the first 1 MiB of a 20 MiB
// response line, waits for a second input line (the client's sign that it
// has received that much), writes the rest of the line and a short response
// with the same id, and then reads its input to the end.
func longServer() int {
	br := bufio.NewReader(os.Stdin)
	if _, err := br.ReadString('\n'); err != nil {
		fmt.Fprintf(os.Stderr, "interop-server: reading the request: %v\n", err)
		return 1
	}
	os.Stdout.WriteString(longHead + strings.Repeat("x", 1<<20))
	if _, err := br.ReadString('\n'); err != nil {
		fmt.Fprintf(os.Stderr, "interop-server: waiting for the client: %v\n", err)
		return 1
	}
	os.Stdout.WriteString(strings.Repeat("x", 19<<20) + longTail + longNext)
	io.Copy(io.Discard, br)
	return 0
}
