package check

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

// readme returns the repository's README, and (flat) the README and the
// command's reference docs/check.md with runs of white space made one
// space, so that claims can be found whatever the line breaks.
func readme(t *testing.T) (raw, flat string) {
	t.Helper()
	b, err := os.ReadFile("../../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile("../../../../docs/check.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b), strings.Join(strings.Fields(string(b)+"\n"+string(ref)), " ")
}

// The output README shows for "go run ./cmd/rpcid check" is the real one.
func TestREADMESample(t *testing.T) {
	raw, _ := readme(t)
	m := regexp.MustCompile("(?s)The first command checks.*?```text\n(.*?)```").FindStringSubmatch(raw)
	if m == nil {
		t.Fatal("README has no text block after \"The first command checks\"")
	}
	code, out, errOut := runCmd(t, terminal{strings.NewReader("")}, "check")
	if code != 1 || m[1] != out {
		t.Errorf("README shows\n%s\nrpcid check (exit %d) prints\n%s", m[1], code, out)
	}
	if !strings.Contains(errOut, "embedded sample") {
		t.Errorf("stderr %q does not say the embedded sample is checked", errOut)
	}
}

// Each claim README makes about the command, by the words it uses, and a
// check of it.
func TestREADMEClaims(t *testing.T) {
	_, flat := readme(t)
	check := func(t *testing.T, stdin *bytes.Reader, args ...string) (int, string, string) {
		t.Helper()
		if stdin == nil {
			return runCmd(t, nil, args...)
		}
		return runCmd(t, stdin, args...)
	}
	file := func(name string) *bytes.Reader {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return bytes.NewReader(b)
	}
	claims := []struct {
		claim string
		test  func(t *testing.T)
	}{
		{"`not equal: \"01\" vs 1: clause 5: a string equals an integer only when it is the integer's canonical decimal spelling, and \"01\" has a leading zero`", func(t *testing.T) {
			code, out, _ := check(t, nil, "eq", `"01"`, "1")
			if code != 1 || out != "not equal: \"01\" vs 1: clause 5: a string equals an integer only when it is the integer's canonical decimal spelling, and \"01\" has a leading zero\n" {
				t.Errorf("eq = %d, %q", code, out)
			}
		}},
		{"cat cmd/rpcid/internal/check/testdata/clean.jsonl | rpcid check # standard input, when it holds a capture", func(t *testing.T) {
			if code, out, _ := check(t, file("clean.jsonl"), "check"); code != 0 || !strings.HasPrefix(out, "checked 1 file: 12 messages") {
				t.Errorf("= %d, %q", code, out)
			}
		}},
		{"No FILE: standard input (a pipe that stays open without data is waited for, with a note on standard error after 2 s), or the embedded sample when standard input is a terminal or another device, not open, or empty; `-`: standard input, always (scripts that pipe in a capture should pass `-`, so that an empty one is reported as nothing to check rather than replaced by the sample).", func(t *testing.T) {
			if stdinWait != 2*time.Second {
				t.Errorf("stdinWait = %v", stdinWait)
			}
			if code, out, errOut := check(t, bytes.NewReader(nil), "check"); code != 1 || !strings.HasPrefix(out, "sample.jsonl:") || !strings.Contains(errOut, "standard input is empty") {
				t.Errorf("check < empty = %d, %q, %q", code, out, errOut)
			}
			if code, out, _ := check(t, file("clean.jsonl"), "check", "-"); code != 0 || !strings.HasPrefix(out, "checked 1 file") {
				t.Errorf("check - = %d, %q", code, out)
			}
			if code, out, _ := check(t, bytes.NewReader(nil), "check", "-"); code != 1 || !strings.HasPrefix(out, "<stdin>: error: nothing to check") {
				t.Errorf("check - < empty = %d, %q", code, out)
			}
		}},
		{"`-json` prints one JSON object per finding and the summary on standard error.", func(t *testing.T) {
			code, out, errOut := check(t, nil, "check", "-json", "testdata/unmatched.jsonl")
			if code != 1 || len(decodeFindings(t, out)) != strings.Count(out, "\n") || !strings.HasPrefix(errOut, "checked 1 file") {
				t.Errorf("-json = %d, stderr %q", code, errOut)
			}
		}},
		{"`FILE: level: message`", func(t *testing.T) {
			if _, out, _ := check(t, nil, "check", "testdata/empty.jsonl"); !strings.HasPrefix(out, "testdata/empty.jsonl: error: nothing to check") {
				t.Errorf("= %q", out)
			}
		}},
		{"| 0 clean, 1 findings, 2 usage error or unreadable file |", func(t *testing.T) {
			for args, want := range map[string]int{"testdata/clean.jsonl": 0, "testdata/type-changed.jsonl": 1, "testdata/nope": 2, "-nope": 2} {
				if code, _, _ := check(t, nil, "check", args); code != want {
					t.Errorf("check %s = %d, want %d", args, code, want)
				}
			}
		}},
		{"Every command's `-h` prints its usage screen to standard output and exits 0; usage errors go to standard error with status 2.", func(t *testing.T) {
			for _, name := range []string{"check", "eq", "key", "vectors"} {
				if code, out, errOut := check(t, nil, name, "-h"); code != 0 || errOut != "" || !strings.HasPrefix(out, "usage: rpcid "+name) {
					t.Errorf("%s -h = %d", name, code)
				}
				if code, out, errOut := check(t, nil, name, "-x", "y", "z"); code != 2 || out != "" || errOut == "" {
					t.Errorf("%s -x y z = %d, %q, %q", name, code, out, errOut)
				}
			}
		}},
		{"A directory or a file that cannot be read is reported once as `could not read FILE: REASON`, is not counted as checked, and makes the status 2.", func(t *testing.T) {
			dir := t.TempDir()
			code, out, errOut := check(t, nil, "check", dir)
			if code != 2 || errOut != "rpcid check: could not read "+dir+": is a directory\n" || !strings.HasPrefix(out, "checked 0 files") {
				t.Errorf("= %d, %q, %q", code, out, errOut)
			}
		}},
		{"A HAR file is recognized by its top-level `log` object, wherever that member stands; a JSON Lines file whose first message has a member named `log` is still JSON Lines.", func(t *testing.T) {
			if _, out, _ := check(t, nil, "check", "testdata/log-not-first.har"); !strings.HasPrefix(out, "testdata/log-not-first.har:entry 1: warning") {
				t.Errorf("log-not-first.har: %q", out)
			}
			if _, out, _ := check(t, nil, "check", "testdata/log-member.jsonl"); !strings.HasPrefix(out, "testdata/log-member.jsonl:2: warning") {
				t.Errorf("log-member.jsonl: %q", out)
			}
		}},
		{"a 2024-11-05 HTTP+SSE session, whose GET stream is listed first and carries the answers to POSTs answered 202, checks clean. SSE events of type `\"\"` or `message` are examined, and so is an event typed `message` with spaces around it (`event:  message`), with an `ambiguous-event` warning: go-sdk and mcp-go trim the type and read it, clients that follow the SSE standard ignore it. Events of other types (the `endpoint` event) are counted in the summary.", func(t *testing.T) {
			code, out, _ := check(t, nil, "check", "testdata/sse-2024-11-05.har")
			if code != 0 || out != "checked 1 file: 10 messages (4 requests, 4 responses, 2 notifications); 1 SSE event of other types than message not examined (endpoint 1); no findings\n" {
				t.Errorf("= %d, %q", code, out)
			}
			har := harOf(t, [6]any{"POST", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 200, "text/event-stream",
				"event:  message \ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"})
			code, out, _ = check(t, bytes.NewReader([]byte(har)), "check", "-")
			if code != 1 || !strings.Contains(out, "warning: response body: event 1: its type is \" message \"") ||
				!strings.Contains(out, "checked 1 file: 2 messages (1 request, 1 response, 0 notifications); 0 errors, 1 warning\n") {
				t.Errorf("an event typed \" message \": = %d, %q", code, out)
			}
		}},
		{"Of requests pending with Equal ids (a `duplicate-id`), a response in an entry's response body answers the ones in that entry's request body first, as httpid answers a POST's requests on that POST's response; otherwise (on a GET stream, in WebSocket frames) the one sent first.", func(t *testing.T) {
			ping := func(method string) string { return `{"jsonrpc":"2.0","id":1,"method":"` + method + `"}` }
			pong := `{"jsonrpc":"2.0","id":1,"result":{}}`
			har := harOf(t, [6]any{"POST", "", ping("a"), 202, "", ""}, [6]any{"POST", "", ping("b"), 200, "application/json", pong})
			want := "<stdin>:entry 2: error: request id 1 (b) sent while request 1 (entry 1, a) is still pending: their responses cannot be told apart\n" +
				"<stdin>:entry 1: error: request 1 (a) was never answered (its HTTP response was 202 Accepted, with no answer in its body, and no event stream in the capture carries its answer)\n"
			if _, out, _ := check(t, bytes.NewReader([]byte(har)), "check", "-"); !strings.HasPrefix(out, want) {
				t.Errorf("its own request first: %q", out)
			}
			har = harOf(t, [6]any{"POST", "", ping("a"), 202, "", ""}, [6]any{"POST", "", ping("b"), 202, "", ""}, [6]any{"GET", "", "", 200, "text/event-stream", "data: " + pong + "\n\n"})
			want = "<stdin>:entry 2: error: request id 1 (b) sent while request 1 (entry 1, a) is still pending: their responses cannot be told apart\n" +
				"<stdin>:entry 2: error: request 1 (b) was never answered (its HTTP response was 202 Accepted, with no answer in its body, and no event stream in the capture carries its answer)\n"
			if _, out, _ := check(t, bytes.NewReader([]byte(har)), "check", "-"); !strings.HasPrefix(out, want) {
				t.Errorf("a GET stream, the one sent first: %q", out)
			}
		}},
		{"A capture with nothing to check (an empty file, only blank lines, a HAR with no JSON-RPC bodies) is an error finding that says what the file held", func(t *testing.T) {
			for _, name := range []string{"empty.jsonl", "blank.jsonl", "no-jsonrpc.har", "no-entries.har"} {
				if code, out, _ := check(t, nil, "check", "testdata/"+name); code != 1 || !strings.Contains(out, ": error: nothing to check: ") {
					t.Errorf("%s = %d, %q", name, code, out)
				}
			}
		}},
		{"Memory is bounded by the requests pending (about 120 bytes each with integer ids, 150 with short string ids), the last 65536 answered requests", func(t *testing.T) {
			if answeredMax != 65536 {
				t.Errorf("answeredMax = %d", answeredMax)
			}
			if testing.Short() {
				t.Skip("measures 200k pending requests")
			}
			if got := pendingBytes(200_000, strconv.Itoa); got > 130 {
				t.Errorf("%.0f bytes per pending request", got)
			}
		}},
		{"`answered-twice` (error): `response id 5 is a second answer: request 5 (line 1, tools/call) was already answered at line 2`.", func(t *testing.T) {
			in := `{"jsonrpc":"2.0","id":5,"method":"tools/call"}` + "\n" + `{"jsonrpc":"2.0","id":5,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":5,"result":{}}` + "\n"
			if _, out, _ := check(t, bytes.NewReader([]byte(in)), "check", "-"); !strings.HasPrefix(out, "<stdin>:3: error: response id 5 is a second answer: request 5 (line 1, tools/call) was already answered at line 2\n") {
				t.Errorf("= %q", out)
			}
		}},
		{"are written as JSON escapes such as `\\u202e`, in the text output, in `-json` output, and in what `eq` and `key` print", func(t *testing.T) {
			for _, args := range [][]string{{"check", "testdata/terminal.jsonl"}, {"check", "-json", "testdata/terminal.jsonl"}, {"key", "\"\u202e\u0085\x7f\""}, {"eq", "\"\u2066\"", "1"}} {
				_, out, _ := check(t, nil, args...)
				for _, r := range out {
					if r != '\n' && base.UnsafeRune(r) || r == utf8.RuneError {
						t.Errorf("rpcid %q prints %U:\n%s", args, r, out)
						break
					}
				}
			}
		}},
		{"Text from a capture is cut to 64 bytes (ids and method names alike)", func(t *testing.T) {
			in := `{"jsonrpc":"2.0","id":"` + strings.Repeat("i", 1000) + `","method":"` + strings.Repeat("m", 1000) + `"}` + "\n"
			_, out, _ := check(t, bytes.NewReader([]byte(in)), "check", "-")
			if len(out) > 400 || !strings.Contains(out, "... (1002 bytes)") || !strings.Contains(out, "... (1000 bytes)") {
				t.Errorf("= %q", out)
			}
		}},
		{"each `[editor -> server] {...}` line is a message VS Code sent, each `[server -> editor] {...}` one the server sent", func(t *testing.T) {
			_, out, _ := check(t, nil, "check", "testdata/vscode-mcp-output.log")
			if !strings.HasPrefix(out, `testdata/vscode-mcp-output.log:9: warning: response id "1" matches request 1 (line 7, initialize) only under the rule`) {
				t.Errorf("= %q", out)
			}
		}},
		{"a server's lines before its first `Initializing server...` are the run the log starts in, kept apart from the next run like any other.", func(t *testing.T) {
			_, out, _ := check(t, nil, "check", "testdata/claude-desktop-tail-restart.log")
			if strings.Contains(out, ": error:") || !strings.Contains(out, "; 0 errors, 2 warnings. Breaks: ") {
				t.Errorf("= %q", out)
			}
		}},
		{"would settle which side sent what", func(t *testing.T) {
			if _, out, _ := check(t, nil, "check", "testdata/no-markers.jsonl"); !strings.Contains(out, "roots/list (line 2) looks like a request the server sent") {
				t.Errorf("= %q", out)
			}
		}},
	}
	for _, k := range kinds {
		claims = append(claims, struct {
			claim string
			test  func(t *testing.T)
		}{"`" + k + "`", func(t *testing.T) {}})
	}
	for _, c := range claims {
		t.Run(c.claim[:min(len(c.claim), 40)], func(t *testing.T) {
			if !strings.Contains(flat, strings.Join(strings.Fields(c.claim), " ")) {
				t.Fatalf("neither README nor docs/check.md says %q", c.claim)
			}
			c.test(t)
		})
	}
}

// The rpcid check commands README shows under "The rpcid command" name
// files a fresh clone has, and do what their comments say: they run, and
// find what those captures hold.
func TestREADMECheckCommands(t *testing.T) {
	raw, _ := readme(t)
	m := regexp.MustCompile("(?s)## The rpcid command\n\n```sh\n(.*?)```").FindStringSubmatch(raw)
	if m == nil {
		t.Fatal("README has no sh block under \"The rpcid command\"")
	}
	ran := 0
	for _, line := range strings.Split(m[1], "\n") {
		cmd, _, _ := strings.Cut(line, "#")
		fields := strings.Fields(cmd)
		var stdin *bytes.Reader
		if len(fields) > 3 && fields[0] == "cat" && fields[2] == "|" {
			b, err := os.ReadFile("../../../../" + fields[1])
			if err != nil {
				t.Errorf("%s: %v", line, err)
				continue
			}
			stdin, fields = bytes.NewReader(b), fields[3:]
		}
		if len(fields) < 2 || fields[0] != "rpcid" || fields[1] != "check" || len(fields) == 2 && stdin == nil || fields[len(fields)-1] == "-h" {
			continue
		}
		args := []string{"check"}
		for _, f := range fields[2:] {
			if strings.HasPrefix(f, "-") {
				args = append(args, f)
				continue
			}
			if _, err := os.Stat("../../../../" + f); err != nil {
				t.Errorf("%s: %v", line, err)
			}
			// From the repository's root, as README runs it; the test
			// runs in cmd/rpcid/internal/check.
			args = append(args, strings.TrimPrefix(f, "cmd/rpcid/internal/check/"))
		}
		var code int
		var out, errOut string
		if stdin != nil {
			code, out, errOut = runCmd(t, stdin, args...)
		} else {
			code, out, errOut = runCmd(t, nil, args...)
		}
		// -json prints the summary on standard error.
		if code == 2 || errOut != "" && !strings.HasPrefix(errOut, "checked ") {
			t.Errorf("%s: exit %d, stderr %q", line, code, errOut)
		}
		if out == "" {
			t.Errorf("%s: printed nothing", line)
		}
		ran++
	}
	if ran != 3 {
		t.Errorf("ran %d rpcid check commands of README, want 3", ran)
	}
}
