package main

import (
	"os"
	"strings"
	"testing"
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
		{[]string{"check", "testdata/clean.jsonl", "-json"}, "rpcid check: could not read -json: no such file or directory (flags go before the FILEs)"},
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
// what check, key and the proxy's log print: one unsafeRune serves all.
func TestFormatCharactersEscaped(t *testing.T) {
	for _, r := range []rune{0x00ad, 0x200b, 0x202e, 0xfeff} {
		_, out, _ := runCmd(t, nil, "key", `"a`+string(r)+`b"`)
		if strings.ContainsRune(out, r) || !strings.Contains(out, `\u`) {
			t.Errorf("rpcid key of a string with U+%04X printed %q", r, out)
		}
		if !unsafeRune(r) || escapeUnsafe(string(r)) == string(r) {
			t.Errorf("U+%04X is not escaped in the proxy's log lines", r)
		}
	}
}

// TestProxyAmbiguous checks that stdio mode's -v names a response id it
// leaves alone because requests with Equal ids were sent in two spellings.
func TestProxyAmbiguous(t *testing.T) {
	in := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\"}\n{\"jsonrpc\":\"2.0\",\"id\":1.0,\"method\":\"b\"}\n"
	code, out, errOut := runCmd(t, strings.NewReader(in), "proxy", "-v", "--", "sh", "-c", `read a; read b; echo '{"jsonrpc":"2.0","id":"1","result":{}}'`)
	if code != 0 || out != "{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}\n" ||
		!strings.Contains(errOut, `rpcid proxy: response id "1" matches request ids sent in different spellings: not restored`) ||
		!strings.Contains(errOut, "0 ids restored, 0 unmatched, 1 ambiguous\n") {
		t.Errorf("proxy = %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestTruncatedHAR checks that a HAR cut off before its first entry gives
// one finding about the file, naming no entry it does not have.
func TestTruncatedHAR(t *testing.T) {
	name := t.TempDir() + "/trunc.har"
	if err := os.WriteFile(name, []byte(`{"log":{"version":"1.2","entries":[`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCmd(t, nil, "check", name)
	want := name + ": error: nothing to check: not a valid HAR file: it is cut short (the input ends at byte offset 35), and no entry could be read\n"
	if code != 1 || !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 2 {
		t.Errorf("check trunc.har = %d, %q\nwant one finding %q and the summary", code, out, want)
	}
}
