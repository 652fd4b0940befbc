package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

// TestUsageMessages checks that each usage error says what is true for its
// input, found by a walkthrough as a new user.
func TestUsageMessages(t *testing.T) {
	tests := []struct {
		args   []string
		stderr string // whole first line
	}{
		// Out of range and invalid UTF-8 are not wrong types: no "is a
		// number; an id is a string, a number or null" after the reason.
		{[]string{"eq", "10e999999999999999999", "1"}, "rpcid eq: 10e999999999999999999 is not a JSON id: exponent of the value in lowest terms has 19 or more digits at byte offset 2: number out of range"},
		// After "--", a FILE named like a flag is meant: no hint.
		{[]string{"check", "--", "-json"}, "rpcid check: could not read -json: no such file or directory"},
		{[]string{"vectors", "x"}, "usage: rpcid vectors"},
		{[]string{"proxy", "http://127.0.0.1:1/a", "--", "true"}, "rpcid proxy: a URL or -- COMMAND, not both"},
		{[]string{"proxy", "127.0.0.1:18765/mcp"}, `rpcid proxy: URL "127.0.0.1:18765/mcp": scheme must be http or https (as in http://127.0.0.1:18765/mcp)`},
	}
	for _, tt := range tests {
		code, _, errOut := runCmd(t, nil, tt.args...)
		first, _, _ := strings.Cut(errOut, "\n")
		if code != 2 || first != tt.stderr {
			t.Errorf("rpcid %q = %d, stderr %q\nwant 2 and first line %q", tt.args, code, errOut, tt.stderr)
		}
	}
	// Every usage error ends with the same pointer to -h.
	for _, cmd := range []string{"check", "vectors", "proxy"} { // eq and key take no flags: -nope is an id
		_, _, errOut := runCmd(t, nil, cmd, "-nope")
		if !strings.HasSuffix(errOut, "\"rpcid "+cmd+" -h\" prints the full usage.\n") {
			t.Errorf("rpcid %s -nope: stderr %q does not end with the pointer to -h", cmd, errOut)
		}
	}
}

// TestFormatCharactersEscaped checks that format characters that hide text
// (soft hyphen, zero-width space), not only the bidi controls, are escaped in
// what check, key and the proxy's log print: one base.UnsafeRune serves all
// (the proxy's log: TestEscapeUnsafeFormatCharacters).
func TestFormatCharactersEscaped(t *testing.T) {
	for _, r := range []rune{0x00ad, 0x200b, 0x202e, 0xfeff} {
		_, out, _ := runCmd(t, nil, "key", `"a`+string(r)+`b"`)
		if strings.ContainsRune(out, r) || !strings.Contains(out, `\u`) {
			t.Errorf("rpcid key of a string with U+%04X printed %q", r, out)
		}
		if !base.UnsafeRune(r) {
			t.Errorf("U+%04X is not an unsafe rune", r)
		}
	}
}

// runCmd runs "rpcid ARGS" in this process and returns its exit status and
// output. A nil stdin is an empty pipe.
func runCmd(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	code = run(args, stdin, &out, &errb)
	return code, out.String(), errb.String()
}

// The habits of a Unix tool, for every command.
func TestUnixHabitsEveryCommand(t *testing.T) {
	// -h of every command prints its full usage to standard output and
	// exits 0.
	for _, c := range commands {
		code, out, errOut := runCmd(t, nil, c.Name, "-h")
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "usage: "+c.UsageLine+"\n\n") || len(out) < 200 {
			t.Errorf("%s -h = %d, stderr %q, stdout %q; want 0 and the full usage on stdout", c.Name, code, errOut, out)
		}
	}
	for _, args := range [][]string{{"-h"}, {"help"}, {"--help"}} {
		if code, out, _ := runCmd(t, nil, args...); code != 0 || !strings.Contains(out, "rpcid check") {
			t.Errorf("rpcid %s = %d, %q", args[0], code, out)
		}
	}
	// Usage errors go to standard error with status 2.
	for _, args := range [][]string{{"check", "-nope"}, {"eq", "1"}, {"key"}, {"vectors", "x"}, {"nope"}, {}} {
		code, out, errOut := runCmd(t, nil, args...)
		if code != 2 || out != "" || !strings.Contains(errOut, "usage") {
			t.Errorf("rpcid %q = %d, stdout %q, stderr %q; want 2, nothing on stdout and the usage on stderr", args, code, out, errOut)
		}
	}
	for _, tt := range []struct {
		args   []string
		stderr string
	}{
		{nil, "usage:"},
		{[]string{"chek"}, `unknown command "chek"`},
	} {
		code, out, errOut := runCmd(t, nil, tt.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, tt.stderr) {
			t.Errorf("rpcid %q = %d, stdout %q, stderr %q; want 2 and %q on stderr", tt.args, code, out, errOut, tt.stderr)
		}
	}
}
