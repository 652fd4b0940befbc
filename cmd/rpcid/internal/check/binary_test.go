package check

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// devNull as the stdin of a TestBinary case means standard input is
// os.DevNull.
const devNull = "\x00devnull"

// TestBinary builds the command and runs it as a user would: exit statuses
// and output come from the real process.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	bin := filepath.Join(t.TempDir(), "rpcid")
	if out, err := exec.Command(goTool, "build", "-o", bin, "github.com/rpcid/rpcid/cmd/rpcid").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	sample, err := os.ReadFile("testdata/sample.golden")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args   []string
		stdin  string
		code   int
		stdout string // exact, or "" to skip
		stderr string // substring
	}{
		{[]string{"check"}, devNull, 1, string(sample), "embedded sample"},
		{[]string{"check"}, `{"jsonrpc":"2.0","id":"01","result":{}}` + "\n", 1,
			"<stdin>:1: error: response id \"01\" matches no pending request\n" +
				"checked 1 file: 1 message (0 requests, 1 response, 0 notifications); 1 error, 0 warnings\n", ""},
		{[]string{"check"}, "", 1, string(sample), "standard input is empty: checking the embedded sample"},
		{[]string{"check", "-"}, "", 1, "<stdin>: error: nothing to check: the file is empty\n" +
			"checked 1 file: 0 messages (0 requests, 0 responses, 0 notifications); 1 error, 0 warnings\n", ""},
		{[]string{"check", "-h"}, "", 0, "", ""},
		{[]string{"check", "testdata/clean.jsonl"}, "", 0, "checked 1 file: 12 messages (5 requests, 5 responses, 2 notifications); no findings\n", ""},
		{[]string{"check", "-"}, `{"jsonrpc":"2.0","id":"01","result":{}}` + "\n", 1,
			"<stdin>:1: error: response id \"01\" matches no pending request\n" +
				"checked 1 file: 1 message (0 requests, 1 response, 0 notifications); 1 error, 0 warnings\n", ""},
		{[]string{"check", "missing.har"}, "", 2, "", "missing.har"},
		{[]string{"eq", `"01"`, "1"}, "", 1, "not equal: \"01\" vs 1: clause 5: a string equals an integer only when it is the integer's canonical decimal spelling, and \"01\" has a leading zero\n", ""},
		{[]string{"eq", `"0"`, "0"}, "", 0, "equal: \"0\" vs 0: clause 5: \"0\" is the canonical decimal spelling of the integer 0\n", ""},
		{[]string{"eq", "01", "1"}, "", 2, "", "not a JSON id"},
		{[]string{"key", `"-12"`}, "", 0, "kind: string\nkey:  -12\njson: \"-12\"\n", ""},
		{[]string{}, "", 2, "", "usage:"},
	}
	for _, tt := range tests {
		cmd := exec.Command(bin, tt.args...)
		cmd.Stdin = strings.NewReader(tt.stdin)
		if tt.stdin == devNull {
			// A character device, as a terminal is: check shows its sample.
			f, err := os.Open(os.DevNull)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cmd.Stdin = f
		}
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatalf("rpcid %q: %v", tt.args, err)
		}
		if code != tt.code {
			t.Errorf("rpcid %q: exit status %d, want %d (stderr %q)", tt.args, code, tt.code, stderr.String())
		}
		if tt.stdout != "" && stdout.String() != tt.stdout {
			t.Errorf("rpcid %q: stdout\n%s\nwant\n%s", tt.args, stdout.String(), tt.stdout)
		}
		if !strings.Contains(stderr.String(), tt.stderr) {
			t.Errorf("rpcid %q: stderr %q does not contain %q", tt.args, stderr.String(), tt.stderr)
		}
	}
}
