package idcmd

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

// runCmd runs "rpcid ARGS" for eq, key or vectors and returns its exit
// status and output. A nil stdin is an empty pipe.
func runCmd(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	cmds := map[string]*base.Command{"eq": Eq, "key": Key, "vectors": Vectors}
	if len(args) == 0 || cmds[args[0]] == nil {
		t.Fatalf("runCmd %q: not a command these tests run", args)
	}
	var out, errb bytes.Buffer
	code = cmds[args[0]].Run(args[1:], stdin, &out, &errb)
	return code, out.String(), errb.String()
}
