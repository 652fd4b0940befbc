package main

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/rpcid/rpcid/internal/restore"
)

// BenchmarkProxyStdio measures what stdio mode does to each line of a
// session, side by side with what a client has without the proxy (the bytes
// copied as they are): "direct" copies the client's requests and the
// server's responses (ids turned into strings); "proxy" passes the same bytes
// through the proxy's recording and restoring readers, as proxyStdio does
// between the processes. Throughput is of both directions together.
func BenchmarkProxyStdio(b *testing.B) {
	const n = 1000
	var reqs, resps bytes.Buffer
	for i := range n {
		fmt.Fprintf(&reqs, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"add","arguments":{"a":%d,"b":2}}}`+"\n", i, i)
		fmt.Fprintf(&resps, `{"jsonrpc":"2.0","id":"%d","result":{"content":[{"type":"text","text":"%d"}]}}`+"\n", i, i+2)
	}
	lg := &proxyLog{w: io.Discard}
	b.Run("direct", func(b *testing.B) {
		b.SetBytes(int64(reqs.Len() + resps.Len()))
		for range b.N {
			io.Copy(io.Discard, bytes.NewReader(reqs.Bytes()))
			io.Copy(io.Discard, bytes.NewReader(resps.Bytes()))
		}
	})
	b.Run("proxy", func(b *testing.B) {
		b.SetBytes(int64(reqs.Len() + resps.Len()))
		var out bytes.Buffer
		for range b.N {
			table := &restore.Table{MaxPending: n}
			io.Copy(io.Discard, recordingReader(table, bytes.NewReader(reqs.Bytes()), 16<<20, lg))
			out.Reset()
			io.Copy(&out, restoringReader(table, bytes.NewReader(resps.Bytes()), 16<<20))
			if st := table.Stats(); st.Restored != n {
				b.Fatalf("restored %d ids, want %d", st.Restored, n)
			}
		}
	})
}
