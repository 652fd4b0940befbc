package proxy

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
)

// TestProxyBinaryMediaTypes runs the built rpcid proxy in HTTP mode, as a
// separate process on 127.0.0.1, in front of a server that stringifies ids
// and answers in the media type and with the byte order mark each case
// asks for: requests sent as application/json-rpc or
// application/jsonrequest (the JSON-RPC over HTTP draft; the Zabbix API
// tells clients to send application/json-rpc) are recorded, responses so
// typed are restored, and a byte order mark before a request or response
// body is skipped when scanning and passed on as it is.
func TestProxyBinaryMediaTypes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS == "windows" {
		t.Skip("signals")
	}
	const bom = "\xef\xbb\xbf"
	received := make(chan string, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		received <- string(body)
		w.Header().Set("Content-Type", r.Header.Get("X-Answer-Type"))
		prefix := ""
		if r.Header.Get("X-Answer-BOM") != "" {
			prefix = bom
		}
		io.WriteString(w, prefix+`{"jsonrpc":"2.0","id":"7","result":"8.0.0"}`)
	}))
	defer up.Close()
	cmd := exec.Command(buildRpcid(t), "proxy", "-listen", "127.0.0.1:0", up.URL+"/api_jsonrpc.php")
	addr, _ := startBinary(t, cmd)

	tests := []struct {
		name             string
		reqType, reqBody string
		respType         string
		respBOM          bool
		want             string
	}{
		{"zabbix: json-rpc both ways", "application/json-rpc", `{"jsonrpc":"2.0","method":"apiinfo.version","params":{},"id":7}`,
			"application/json-rpc", false, `{"jsonrpc":"2.0","id":7,"result":"8.0.0"}`},
		{"jsonrequest request, json answer", "application/jsonrequest", `{"jsonrpc":"2.0","method":"m","id":7}`,
			"application/json", false, `{"jsonrpc":"2.0","id":7,"result":"8.0.0"}`},
		{"json request, json-rpc answer with parameters", "application/json", `{"jsonrpc":"2.0","method":"m","id":7}`,
			"Application/JSON-RPC; charset=UTF-8", false, `{"jsonrpc":"2.0","id":7,"result":"8.0.0"}`},
		{"answer with a byte order mark", "application/json", `{"jsonrpc":"2.0","method":"m","id":7}`,
			"application/json", true, bom + `{"jsonrpc":"2.0","id":7,"result":"8.0.0"}`},
		{"request with a byte order mark", "application/json-rpc", bom + `{"jsonrpc":"2.0","method":"m","id":7}`,
			"application/json-rpc", true, bom + `{"jsonrpc":"2.0","id":7,"result":"8.0.0"}`},
		{"not JSON: text/plain request", "text/plain", `{"jsonrpc":"2.0","method":"m","id":7}`,
			"application/json", false, `{"jsonrpc":"2.0","id":"7","result":"8.0.0"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := newRequest(t, "POST", "http://"+addr+"/api_jsonrpc.php", tt.reqBody)
			req.Header.Set("Content-Type", tt.reqType)
			req.Header.Set("X-Answer-Type", tt.respType)
			if tt.respBOM {
				req.Header.Set("X-Answer-BOM", "1")
			}
			resp, body := do(t, req)
			if got := <-received; got != tt.reqBody {
				t.Errorf("server received %q, want %q", got, tt.reqBody)
			}
			if resp.StatusCode != http.StatusOK || body != tt.want {
				t.Errorf("client read status %d, %q; want 200, %q", resp.StatusCode, body, tt.want)
			}
			if ct := resp.Header.Get("Content-Type"); ct != tt.respType {
				t.Errorf("Content-Type %q, want %q", ct, tt.respType)
			}
			if cl := resp.Header.Get("Content-Length"); cl != "" && cl != strconv.Itoa(len(body)) {
				t.Errorf("Content-Length %s for a body of %d bytes", cl, len(body))
			}
		})
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := waitBounded(t, cmd); err != nil {
		t.Errorf("after SIGTERM: %v", err)
	}
}
