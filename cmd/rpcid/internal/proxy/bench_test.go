package proxy

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/rpcid/rpcid/internal/restore"
)

// BenchmarkProxyStdio measures what stdio mode does to each line of a
// session, side by side with what a client has without the proxy (the bytes
// copied as they are): "direct" copies the client's requests and the
// server's responses (ids turned into strings); "proxy" passes the same bytes
// through the proxy's recording and restoring readers, as proxyStdio does
// between the processes. Throughput is of both directions together. Messages
// are small (about 110 bytes, a tools/call and its result) or 1 KB (the
// same, with 1 KB of arguments and of text).
func BenchmarkProxyStdio(b *testing.B) {
	const n = 1000
	for _, size := range []struct {
		name string
		pad  int
	}{{"small", 0}, {"1KB", 1024 - 110}} {
		pad := strings.Repeat("x", size.pad)
		var reqs, resps bytes.Buffer
		for i := range n {
			fmt.Fprintf(&reqs, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":2,"c":"%s"}}}`+"\n", i, i, pad)
			fmt.Fprintf(&resps, `{"jsonrpc":"2.0","id":"%d","result":{"content":[{"type":"text","text":"%d%s"}]}}`+"\n", i, i+2, pad)
		}
		lg := &proxyLog{w: io.Discard}
		b.Run(size.name+"/direct", func(b *testing.B) {
			b.SetBytes(int64(reqs.Len() + resps.Len()))
			for range b.N {
				io.Copy(io.Discard, bytes.NewReader(reqs.Bytes()))
				io.Copy(io.Discard, bytes.NewReader(resps.Bytes()))
			}
		})
		b.Run(size.name+"/proxy", func(b *testing.B) {
			b.SetBytes(int64(reqs.Len() + resps.Len()))
			var out bytes.Buffer
			for range b.N {
				table := &restore.Table{MaxPending: n}
				io.Copy(io.Discard, recordingReader(table, bytes.NewReader(reqs.Bytes()), 16<<20, lg, nil))
				out.Reset()
				io.Copy(&out, restoringReader(table, bytes.NewReader(resps.Bytes()), 16<<20))
				if st := table.Stats(); st.Restored != n {
					b.Fatalf("restored %d ids, want %d", st.Restored, n)
				}
			}
		})
	}
}

// BenchmarkProxyHTTP measures one JSON-RPC exchange over HTTP on loopback,
// side by side: "direct" posts to the upstream, which answers with the id
// turned into a string; "reverseproxy" posts through a plain
// httputil.ReverseProxy (the extra hop alone, ids left as they are);
// "proxy" posts through rpcid proxy (HTTP mode, in this process).
func BenchmarkProxyHTTP(b *testing.B) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":"7","result":{"content":[{"type":"text","text":"9"}]}}`)
	}))
	defer up.Close()
	cfg, _, ok := parseProxyArgs([]string{"-listen", "127.0.0.1:0", up.URL}, io.Discard, io.Discard)
	if !ok {
		b.Fatal("flags")
	}
	sig := make(chan os.Signal, 1)
	started := make(chan net.Addr, 1)
	done := make(chan int, 1)
	go func() { done <- proxyHTTP(cfg, io.Discard, sig, func(a net.Addr) { started <- a }) }()
	proxyURL := "http://" + (<-started).String()
	defer func() { sig <- syscall.SIGTERM; <-done }()

	u, _ := url.Parse(up.URL)
	plain := httptest.NewServer(httputil.NewSingleHostReverseProxy(u))
	defer plain.Close()

	const req = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{"a":7,"b":2}}}`
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	for _, bb := range []struct{ name, url, want string }{
		{"direct", up.URL, `"id":"7"`},
		{"reverseproxy", plain.URL, `"id":"7"`},
		{"proxy", proxyURL, `"id":7`},
	} {
		b.Run(bb.name, func(b *testing.B) {
			for range b.N {
				resp, err := client.Post(bb.url+"/mcp", "application/json", strings.NewReader(req))
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !strings.Contains(string(body), bb.want) {
					b.Fatalf("%s: %s", bb.name, body)
				}
			}
		})
	}
}

// BenchmarkProxyStdioLarge measures the restoring reader on one response of
// 1 MiB, which arrives in many reads: a tool result of text with escaped
// quotation marks (JSON in a string), and an array of small objects; read
// in full 16 KiB reads, and in reads of 4 KiB (a writer that flushes 4 KiB
// at a time: every read is short).
func BenchmarkProxyStdioLarge(b *testing.B) {
	text := []byte(`{"jsonrpc":"2.0","id":"1","result":{"content":[{"type":"text","text":"` +
		strings.Repeat(`{\"k\":\"lorem ipsum dolor sit\"},`, 1<<20/32) + `"}]}}` + "\n")
	var arr bytes.Buffer
	arr.WriteString(`{"jsonrpc":"2.0","id":"1","result":[`)
	for arr.Len() < 1<<20 {
		arr.WriteString(`{"name":"x","value":[1,2,3]},`)
	}
	arr.WriteString("{}]}\n")
	for _, bb := range []struct {
		name string
		in   []byte
	}{{"text", text}, {"array", arr.Bytes()}} {
		for _, reads := range []int{16 << 10, 4 << 10} {
			b.Run(fmt.Sprintf("%s/reads=%d", bb.name, reads), func(b *testing.B) {
				b.SetBytes(int64(len(bb.in)))
				for range b.N {
					table := &restore.Table{}
					table.Record([]byte(`{"jsonrpc":"2.0","id":1,"method":"m"}`))
					src := &shortReads{r: bytes.NewReader(bb.in), n: reads}
					io.Copy(io.Discard, restoringReader(table, src, 16<<20))
					if st := table.Stats(); st.Restored != 1 {
						b.Fatalf("restored %d ids, want 1", st.Restored)
					}
				}
			})
		}
	}
}

// shortReads reads at most n bytes at a time from r.
type shortReads struct {
	r io.Reader
	n int
}

func (s *shortReads) Read(p []byte) (int, error) {
	return s.r.Read(p[:min(len(p), s.n)])
}
