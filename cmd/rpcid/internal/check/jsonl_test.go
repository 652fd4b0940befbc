package check

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A 10 MB message on one line is read whole (bufio.Scanner's default limit
// is 64 KiB), from a file and from standard input.
func TestCheckLongLine(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 10 MB lines; run without -short")
	}
	const size = 10 << 20
	big := strings.Repeat("x", size)
	capture := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"blob":"` + big + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":"1","result":{}}` + "\n" +
		`{"jsonrpc":"2.0","id":"` + big + `","method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, []byte(capture), 0o644); err != nil {
		t.Fatal(err)
	}
	want := path + `:2: warning: response id "1" matches request 1 (line 1, tools/call) only under the rule: the id's JSON type changed from number to string in transit; SDKs that compare type and value (go-sdk, mcp-go's stdio and SSE transports, C#) drop this response` + "\n" +
		path + `:3: error: request "` + strings.Repeat("x", 63) + `... (10485762 bytes) (ping) was never answered` + "\n" +
		path + `:4: error: request 2 (ping) was never answered` + "\n" +
		"checked 1 file: 4 messages (3 requests, 1 response, 0 notifications); 2 errors, 1 warning. Breaks: 1 response whose id changed type is dropped (or refused) by go-sdk v1.8.0, mcp-go (stdio, SSE) v1.2.1, sourcegraph/jsonrpc2 v0.2.3, creachadair/jrpc2 v1.3.6 (conformance/RESULTS.md, clause 5: 31, 31, 29 and 38 failed checks) and C#. Fix: rpcid proxy between the client and the hop that changes the ids restores each id to the bytes the client sent.\n"
	code, out, errOut := runCmd(t, nil, "check", path)
	if code != 1 || out != want {
		t.Errorf("check long.jsonl = %d, stderr %q:\n%s\nwant:\n%s", code, errOut, out, want)
	}
	code, out, _ = runCmd(t, strings.NewReader(capture), "check", "-")
	if code != 1 || out != strings.ReplaceAll(want, path, "<stdin>") {
		t.Errorf("check - (long lines) = %d:\n%s", code, out)
	}
}

// A line longer than maxLine is reported and skipped, held only to its
// first maxLine bytes, and the lines around it are checked (a gzip of a few KB can hold a line
// of gigabytes).
func TestCheckLineTooLong(t *testing.T) {
	defer func(n int) { maxLine = n }(maxLine)
	maxLine = 1 << 20
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n")
	long := `{"jsonrpc":"2.0","id":2,"method":"` + strings.Repeat("b", 3<<20) + `"}`
	b.WriteString(long + "\n")
	b.WriteString(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
	dir := t.TempDir()
	path := filepath.Join(dir, "long.jsonl")
	os.WriteFile(path, b.Bytes(), 0o644)
	code, out, _ := runCmd(t, nil, "check", path)
	want := path + fmt.Sprintf(":2: error: the line is %d bytes long, more than check reads as one message (1 MiB), and is not examined\n", len(long)) +
		"checked 1 file: 2 messages (1 request, 1 response, 0 notifications); 1 error, 0 warnings\n"
	if code != 1 || out != want {
		t.Errorf("check = %d:\n%s\nwant:\n%s", code, out, want)
	}
}
