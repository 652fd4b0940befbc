package check

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
	"github.com/rpcid/rpcid/cmd/rpcid/internal/idcmd"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// terminal is standard input as a terminal.
type terminal struct{ io.Reader }

func (terminal) IsTerminal() bool { return true }

// runCmd runs "rpcid ARGS" for check, eq, key or vectors, and returns its exit
// status and output. A nil stdin is an idle terminal.
func runCmd(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if stdin == nil {
		stdin = terminal{strings.NewReader("")}
	}
	cmds := map[string]*base.Command{"check": Cmd, "eq": idcmd.Eq, "key": idcmd.Key, "vectors": idcmd.Vectors}
	if len(args) == 0 || cmds[args[0]] == nil {
		t.Fatalf("runCmd %q: not a command these tests run", args)
	}
	var out, errb bytes.Buffer
	code = cmds[args[0]].Run(args[1:], stdin, &out, &errb)
	return code, out.String(), errb.String()
}

// golden compares got with the named file under testdata/, or rewrites the
// file with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("output differs from %s (-want +got):\n%s", path, diff)
	}
}

// The captures under testdata/, each with its exit status. Each one has a
// golden file of check's output: NAME.golden.
var captures = []struct {
	file string
	code int
	// kinds are the finding kinds the capture is there to show.
	kinds []string
}{
	{"clean.jsonl", 0, nil},
	{"type-changed.jsonl", 1, []string{kindTypeChanged, kindSpellingChanged}},
	{"unmatched.jsonl", 1, []string{kindUnmatched, kindUnanswered, kindUnsafeInteger}},
	{"unanswered.jsonl", 1, []string{kindUnanswered, kindUnmatched}},
	{"duplicate.jsonl", 1, []string{kindDuplicate, kindUnanswered, kindTypeChanged}},
	{"numeric.jsonl", 1, []string{kindUnsafeInteger, kindFractional, kindSpellingChanged, kindTypeChanged, kindUnmatched}},
	{"null.jsonl", 1, []string{kindNullRequest, kindNullResponse}},
	{"invalid.jsonl", 1, []string{kindInvalid}},
	{"sse.har", 1, []string{kindTypeChanged, kindUnmatched, kindUnanswered, kindInvalid}},
	{"truncated.har", 1, []string{kindTypeChanged, kindInvalid}},
	{"gateway-handwritten.har", 1, []string{kindTypeChanged}},
	// One capture or more per class of fault.
	{"large-ids.jsonl", 1, []string{kindUnsafeInteger, kindFractional}},                            // 1
	{"null-id.jsonl", 1, []string{kindNullResponse, kindUnanswered}},                               // 2
	{"null-id.har", 1, []string{kindNullResponse, kindInvalid}},                                    // 2
	{"sse-2024-11-05.har", 0, nil},                                                                 // 3
	{"sse-2024-11-05-gateway.har", 1, []string{kindTypeChanged, kindAnsweredTwice, kindUnmatched}}, // 3, 4
	{"answered-twice.jsonl", 1, []string{kindAnsweredTwice}},                                       // 4
	{"empty.jsonl", 1, []string{kindNothing}},                                                      // 5
	{"blank.jsonl", 1, []string{kindNothing}},                                                      // 5
	{"no-messages.jsonl", 1, []string{kindNothing, kindInvalid}},                                   // 5
	{"no-entries.har", 1, []string{kindNothing}},                                                   // 5
	{"no-jsonrpc.har", 1, []string{kindNothing}},                                                   // 5
	{"terminal.jsonl", 1, []string{kindUnanswered, kindUnmatched, kindNullResponse}},               // 6
	{"log-not-first.har", 1, []string{kindTypeChanged}},                                            // 8
	{"log-member.jsonl", 1, []string{kindTypeChanged}},                                             // 8
	{"log-member-last.jsonl", 0, nil},                                                              // 8
	{"no-markers.jsonl", 1, []string{kindDuplicate, kindAnsweredTwice, kindUnanswered}},            // 9
	{"ambiguous.jsonl", 1, []string{kindInvalid}},                                                  // members named twice or by case variants
	{"bodyless.har", 1, []string{kindUnanswered}},                                                  // response bodies left out of a HAR
	{"mislabelled.har", 1, []string{kindTypeChanged}},                                              // JSON-RPC bodies sent as text/plain
	{"accepted-unanswered.har", 1, []string{kindUnanswered}},                                       // 202 Accepted, every stream recorded
	{"null-id-request.jsonl", 1, []string{kindNullRequest, kindNullResponse, kindUnanswered}},      // a request sent with a null id is answered by one
	{"claude-desktop-restart.log", 1, []string{kindUnanswered}},                                    // a host log of two runs of the server, one after the other
	{"claude-desktop-two-runs.log", 1, []string{kindDuplicate}},                                    // two runs at once: findings say the log does not tell them apart
	{"claude-desktop-stderr-marker.log", 0, nil},                                                   // a server's stderr line that says "Message from server:"
	{"claude-desktop-summary-lines.log", 1, []string{kindInvalid, kindNothing}},                    // message lines that are not JSON
	{"claude-desktop-tail-restart.log", 1, []string{kindTypeChanged}},                              // tail -n of a log: a run the log starts in, then a restart; made here, after sjzar/chatlog#166
	{"vscode-mcp-output.log", 1, []string{kindTypeChanged, kindUnanswered}},                        // VS Code's MCP output log at level debug, with a restart; made here, in the format of rsclarke/mcp-taskfile-server#134 and microsoft/vscode's mcpServerRequestHandler.ts
	{"vscode-mcp-output-2025-03.log", 1, []string{kindTypeChanged, kindSpellingChanged}},           // VS Code's first format, [Client Says] and [Server Says]; made here, in the format of microsoft/vscode#244377
	{"har-then-jsonl.har", 1, []string{kindInvalid}},                                               // a capture joined after a HAR with cat
	{"json-seq-mislabelled.har", 1, []string{kindAnsweredTwice}},                                   // json-seq bodies, one labelled text/plain
	{"redirect-other-origin.har", 0, nil},                                                          // a 307 from http to https: the request sent there again is the same one
	{"sse-2024-11-05-reconnect.har", 1, []string{kindUnanswered}},                                  // a client reconnects: two sessions named by their endpoint events
	{"retried-after-http-failure.har", 1, []string{kindTypeChanged, kindUnanswered}},               // sent again after 401, 307, 503
	{"websocket.har", 1, []string{kindTypeChanged, kindNullResponse, kindInvalid, kindUnanswered}}, // Chrome's _webSocketMessages
	{"websocket-frames-missing.har", 1, []string{kindNothing}},                                     // a HAR writer that records no frames
	{"request-body-missing.har", 1, []string{kindUnmatched}},                                       // postData left out
	{"no-response.har", 1, []string{kindUnanswered}},                                               // no response object, status 0
	{"page-with-oauth-and-rest.har", 0, nil},                                                       // OAuth and REST JSON beside MCP
	{"no-content.har", 1, []string{kindUnanswered}},                                                // 204 to a request
	{"no-content-stream-missing.har", 1, []string{kindUnanswered}},                                 // 204, GET stream without its body
	{"html-instead-of-answer.har", 1, []string{kindUnanswered}},                                    // a login page answered 200
	{"accepted-200-stream-missing.har", 1, []string{kindUnanswered}},                               // 200 "Accepted", GET stream without its body
	{"two-servers-mitmproxy.har", 1, []string{kindTypeChanged, kindUnanswered}},                    // two servers, a new session
	{"har-extension-shapes.har", 1, []string{kindInvalid, kindUnmatched}},                          // _error, bodySize, headers, opcode of other types
	{"ndjson-bodies.har", 1, []string{kindTypeChanged, kindInvalid, kindUnanswered}},               // NDJSON and json-seq bodies
	{"sse-2024-11-05-other-host.har", 0, nil},                                                      // endpoint event naming another host
	{"sse-2024-11-05-other-host-stream-missing.har", 1, []string{kindUnanswered, kindUnmatched}},   // and its GET stream without its body
	{"json-stream-body.har", 1, []string{kindTypeChanged, kindInvalid, kindUnanswered}},            // application/json texts back to back
	{"server-requests-in-streams.har", 1, []string{kindTypeChanged, kindUnanswered}},               // sampling, elicitation in POST streams
	{"mislabelled-streams.har", 1, []string{kindTypeChanged}},                                      // NDJSON as text/plain, SSE as octet-stream
	{"playwright-attach.har", 1, []string{kindUnanswered, kindUnmatched}},                          // bodies in _file sidecars
	{"gateway-paths.har", 1, []string{kindDuplicate, kindUnanswered}},                              // servers behind one origin on different paths, sessions assigned by initialize
	{"sse-resumption-replay.har", 1, []string{kindAnsweredTwice}},                                  // SSE events replayed after Last-Event-ID; an event id reused with other data, or other bytes
	{"sse-same-id-two-posts.har", 0, nil},                                                          // two requests with one id, each answered by an event with one event id: no replay
	{"sse-ids-per-stream.har", 0, nil},                                                             // event ids numbered per POST stream (MCP 2025-03-26): repeats are new events
	{"markers-one-missing.jsonl", 1, []string{kindAnsweredTwice, kindUnanswered}},                  // a client answer left unmarked among marked lines
	{"claude-desktop.log", 1, []string{kindTypeChanged, kindUnmatched, kindUnanswered}},            // mcp-server-NAME.log
	{"claude-desktop-mcp.log", 1, []string{kindTypeChanged}},                                       // mcp.log: two servers interleaved, each with ids from 0
	{"gosdk-logging-client.log", 1, []string{kindTypeChanged, kindUnanswered}},                     // go-sdk's mcp.LoggingTransport, client side
	{"gosdk-logging-server.log", 1, []string{kindTypeChanged, kindUnanswered}},                     // and server side
	{"bom-inside.jsonl", 1, []string{kindInvalid, kindUnanswered}},                                 // cat of files that each start with a BOM
	{"pretty-printed.jsonl", 1, []string{kindNothing, kindInvalid}},                                // jq without -c
	{"utf16-powershell.jsonl", 1, []string{kindNothing}},                                           // Windows PowerShell 5's >
	{"utf16-after-utf8-bom.jsonl", 1, []string{kindNothing}},                                       // a UTF-8 byte order mark, then UTF-16 text
	{"utf32be.jsonl", 1, []string{kindNothing}},                                                    // UTF-32, big-endian byte order mark
	{"utf16-powershell.jsonl.gz", 1, []string{kindNothing}},                                        // UTF-16 inside gzip
	{"websocket.har.gz", 1, []string{kindTypeChanged}},                                             // gzip'd HAR
	{"websocket.zhar", 1, []string{kindTypeChanged}},                                               // mitmproxy's zlib HAR
	{"http-refused.har", 1, []string{kindUnanswered}},                                              // 404 "Session not found", 400 "No valid session ID" with a null id
	{"http-refused-answer.har", 1, []string{kindUnanswered}},                                       // a client answer in a POST refused 404, one failed 503
	{"notification-answered.jsonl", 1, []string{kindNullResponse}},                                 // sharplens-mcp#6: a null-id error to notifications/initialized
	{"notification-answered-pending.jsonl", 1, []string{kindNullResponse, kindUnanswered}},         // and with a request pending, answered later
	{"notification-answered.har", 1, []string{kindNullResponse}},
	{"idless-reply.jsonl", 1, []string{kindInvalid, kindUnanswered}},                              // a reply without an "id" member, tied to its request
	{"idless-reply.har", 1, []string{kindInvalid, kindUnanswered}},                                // and in a HAR exchange
	{"http-error-answers.har", 1, []string{kindNullResponse, kindUnmatched, kindUnanswered}},      // JSON-RPC errors in 400 bodies: a dropped id, an id of no request
	{"accepted-202-empty.har", 1, []string{kindUnanswered}},                                       // a request answered 202 with an empty body, and one 204
	{"duplicate-one-answer.jsonl", 1, []string{kindDuplicate, kindUnanswered}},                    // two requests with one id, one answer: which, the ids cannot tell
	{"batch-null-id.jsonl", 1, []string{kindNullResponse, kindUnanswered}},                        // a null-id reply in a batch whose next element answers the oldest request
	{"null-id-pending-null.jsonl", 1, []string{kindNullResponse, kindNullRequest, kindDuplicate}}, // a null-id reply while requests sent with null ids are pending
	{"float64-one-value.jsonl", 1, []string{kindUnsafeInteger}},                                   // one double, in JavaScript's spelling and exactly
	{"gosdk-gave-up.log", 1, []string{kindTypeChanged, kindUnanswered}},                           // go-sdk's own "request terminated without response" after a type change
	{"gosdk-write-after-read.log", 0, nil},                                                        // go-sdk logged a request's write after its response's read                                   // a null-id error in the 200 answering a notification's POST
	{"null-result-then-answer.jsonl", 1, []string{kindNullResponse, kindUnanswered}},              // a null-id result, then the request's own answer

	// application/json-rpc and application/jsonrequest (the Zabbix API), byte
	// order marks before bodies and NDJSON lines.
	{"bom-and-json-rpc-types.har", 1, []string{kindByteOrderMark, kindTypeChanged, kindInvalid, kindUnanswered}},
}

// A gzip file that cannot be read to its end is a file that could not be
// read, not a truncated capture, and the messages read before the fault
// are not counted as checked.
func TestCheckGzipFaults(t *testing.T) {
	data, err := os.ReadFile("testdata/websocket.har.gz")
	if err != nil {
		t.Fatal(err)
	}
	corrupt := bytes.Clone(data)
	corrupt[len(corrupt)-6] ^= 0xff // the CRC-32 of the text
	for _, c := range []struct {
		name string
		data []byte
		err  string
	}{
		{"truncated", data[:len(data)/2], "could not read standard input: the compressed file is truncated"},
		{"corrupt", corrupt, "could not read standard input: the compressed file is corrupt: invalid checksum"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, bytes.NewReader(c.data), "check", "-")
			if code != 2 {
				t.Errorf("exit status %d, want 2", code)
			}
			if !strings.Contains(errOut, c.err) {
				t.Errorf("stderr %q does not say %q", errOut, c.err)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			summary := lines[len(lines)-1]
			if !strings.HasPrefix(summary, "checked 0 files: 0 messages (") || !strings.Contains(summary, "; 1 file could not be read") {
				t.Errorf("summary %q", summary)
			}
			if c.name == "corrupt" && !strings.Contains(summary, " to the end (9 messages read before the fault, not counted above). Breaks: ") {
				t.Errorf("summary %q does not count the messages read", summary)
			}
		})
	}
}

// Standard input is read to its end once: naming it twice is a usage
// error, not a second, empty capture.
func TestCheckStdinTwice(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
	code, out, errOut := runCmd(t, strings.NewReader(in), "check", "-", "x.jsonl", "-")
	if code != 2 || out != "" || !strings.Contains(errOut, "standard input (-) is named more than once") {
		t.Errorf("check - x.jsonl - = %d, %q, %q", code, out, errOut)
	}
}

// Recorded captures of real go-sdk traffic through a gateway that
// stringifies ids, written by the interop module's recording test.
var recorded = []string{"recorded-gosdk-gateway.har", "recorded-gosdk-gateway.jsonl"}

func TestCheckGolden(t *testing.T) {
	for _, c := range captures {
		t.Run(c.file, func(t *testing.T) {
			code, out, errOut := runCmd(t, nil, "check", "testdata/"+c.file)
			if code != c.code {
				t.Errorf("exit status %d, want %d", code, c.code)
			}
			if errOut != "" {
				t.Errorf("stderr: %q", errOut)
			}
			golden(t, c.file+".golden", out)

			_, jsonOut, _ := runCmd(t, nil, "check", "-json", "testdata/"+c.file)
			seen := map[string]bool{}
			for _, f := range decodeFindings(t, jsonOut) {
				seen[f.Kind] = true
			}
			for _, k := range c.kinds {
				if !seen[k] {
					t.Errorf("no finding of kind %s", k)
				}
			}
		})
	}
}

func TestCheckRecorded(t *testing.T) {
	for _, name := range recorded {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			if _, err := os.Stat(path); err != nil {
				t.Skipf("%s not recorded yet", path)
			}
			code, out, errOut := runCmd(t, nil, "check", path)
			if errOut != "" {
				t.Errorf("stderr: %q", errOut)
			}
			// Through a gateway that turns numeric ids into strings, every
			// response of a go-sdk client (numeric ids) changed type.
			if code != 1 || !strings.Contains(out, "warning: response id \"") ||
				!strings.Contains(out, "the id's JSON type changed from number to string") {
				t.Errorf("exit %d, output does not show the gateway's rewriting:\n%s", code, out)
			}
			goldenPath := filepath.Join("testdata", name+".golden")
			if _, err := os.Stat(goldenPath); err != nil && !*update {
				t.Skipf("no %s yet: run go test -run %s -update", goldenPath, t.Name())
			}
			golden(t, name+".golden", out)
		})
	}
}

// decodeFindings decodes "check -json" output, one object per line,
// rejecting unknown members.
func decodeFindings(t *testing.T, out string) []finding {
	t.Helper()
	var fs []finding
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		var f finding
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("-json line %q: %v", line, err)
		}
		fs = append(fs, f)
	}
	return fs
}

var findingLine = regexp.MustCompile(`^(.+):((\d+|entry \d+):)? (error|warning): (.+)$`)

// -json prints the same findings as the text output, one object per line,
// and the summary on stderr.
func TestCheckJSON(t *testing.T) {
	for _, c := range captures {
		t.Run(c.file, func(t *testing.T) {
			_, text, _ := runCmd(t, nil, "check", "testdata/"+c.file)
			code, out, errOut := runCmd(t, nil, "check", "-json", "testdata/"+c.file)
			if code != c.code {
				t.Errorf("exit status %d, want %d", code, c.code)
			}
			lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
			summary := lines[len(lines)-1]
			if strings.TrimSpace(errOut) != summary {
				t.Errorf("stderr = %q, want the summary %q", errOut, summary)
			}
			var want []string
			for _, l := range lines[:len(lines)-1] {
				if !findingLine.MatchString(l) {
					t.Errorf("finding line %q is not FILE:POS: LEVEL: MESSAGE", l)
				}
				want = append(want, l)
			}
			var got []string
			for _, f := range decodeFindings(t, out) {
				pos := fmt.Sprint(f.Line)
				if f.Entry > 0 {
					pos = fmt.Sprintf("entry %d", f.Entry)
				}
				checkFacts(t, f)
				whole := f.Line == 0 && f.Entry == 0
				if f.Kind == "" || f.Line != 0 && f.Entry != 0 || whole && f.Kind != kindNothing && f.Kind != kindInvalid || !whole && f.Kind == kindNothing {
					t.Errorf("finding %+v: want a kind and exactly one of line and entry (none for %s, and none or one for %s)", f, kindNothing, kindInvalid)
				}
				if whole {
					got = append(got, fmt.Sprintf("%s: %s: %s", f.File, f.Level, base.Printable(f.Message)))
					continue
				}
				got = append(got, fmt.Sprintf("%s:%s: %s: %s", f.File, pos, f.Level, base.Printable(f.Message)))
			}
			if len(want) == len(got) {
				explainedOnce(t, want, got)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("-json findings differ from text findings (-text +json):\n%s", diff)
			}
		})
	}
}

var findingPos = regexp.MustCompile(`^.*?:(\d+|entry \d+): (?:error|warning): `)

var explainedAt = regexp.MustCompile(` \(explained (at ((line|entry) \d+)|above)\)$`)

// explainedOnce checks each text finding that points at an earlier one
// for its explanation (see explained) against its -json form got[i]: the
// finding it points at is printed in full before it, and the short message
// is shorter and names the same message and id (its first three words are
// the full one's). It then replaces want[i] with got[i].
func explainedOnce(t *testing.T, want, got []string) {
	t.Helper()
	for i, w := range want {
		m := explainedAt.FindStringSubmatchIndex(w)
		if m == nil {
			continue
		}
		head := findingLine.FindStringSubmatch(w[:m[0]])
		if head == nil {
			continue
		}
		at := "" // above: at this line or entry
		if p := findingPos.FindStringSubmatch(w); p != nil {
			at = p[1]
		}
		if m[4] >= 0 {
			at = strings.Replace(w[m[4]:m[5]], "line ", "", 1)
		}
		if !slices.ContainsFunc(want[:i], func(l string) bool {
			return strings.Contains(l, ":"+at+": ") && !explainedAt.MatchString(l)
		}) {
			t.Errorf("%q points at %s, which is not an earlier finding in full", w, at)
		}
		full := findingLine.FindStringSubmatch(got[i])
		if full == nil || head[1] != full[1] || head[3] != full[3] || head[4] != full[4] ||
			!slices.Equal(strings.Fields(head[5])[:3], strings.Fields(full[5])[:3]) {
			t.Errorf("%q is not a short form of %q", w, got[i])
		}
		if len(w) >= len(got[i]) {
			t.Errorf("%q is not shorter than the full message %q", w, got[i])
		}
		want[i] = got[i]
	}
}

// The JSON form of findings is an interface for other tools: pin it.
func TestCheckJSONGolden(t *testing.T) {
	for _, name := range []string{"unmatched.jsonl", "duplicate.jsonl", "sse.har", "large-ids.jsonl", "null-id.jsonl",
		"sse-2024-11-05-gateway.har", "answered-twice.jsonl", "no-jsonrpc.har", "terminal.jsonl", "no-markers.jsonl", "bodyless.har",
		"websocket.har", "ndjson-bodies.har", "request-body-missing.har", "retried-after-http-failure.har", "claude-desktop.log",
		"claude-desktop-mcp.log", "vscode-mcp-output.log", "http-refused.har", "http-refused-answer.har", "notification-answered-pending.jsonl"} {
		_, out, _ := runCmd(t, nil, "check", "-json", "testdata/"+name)
		golden(t, name+".json.golden", out)
	}
}

func TestCheckSample(t *testing.T) {
	code, out, errOut := runCmd(t, nil, "check")
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if !strings.Contains(errOut, "embedded sample") {
		t.Errorf("stderr %q does not say the embedded sample is checked", errOut)
	}
	golden(t, "sample.golden", out)
	// The sample shows several kinds of finding.
	_, jsonOut, _ := runCmd(t, nil, "check", "-json")
	seen := map[string]int{}
	for _, f := range decodeFindings(t, jsonOut) {
		seen[f.Kind]++
	}
	for _, k := range []string{kindTypeChanged, kindUnmatched, kindUnanswered, kindUnsafeInteger, kindNullResponse, kindInvalid} {
		if seen[k] == 0 {
			t.Errorf("the sample shows no %s finding", k)
		}
	}
}

func TestCheckStdin(t *testing.T) {
	data, err := os.ReadFile("testdata/unmatched.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/unmatched.jsonl.golden")
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCmd(t, bytes.NewReader(data), "check", "-")
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if diff := cmp.Diff(strings.ReplaceAll(string(want), "testdata/unmatched.jsonl", "<stdin>"), out); diff != "" {
		t.Errorf("check - differs (-want +got):\n%s", diff)
	}

	// A HAR on standard input is detected too, and "-" mixes with files.
	har, err := os.ReadFile("testdata/sse.har")
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ = runCmd(t, bytes.NewReader(har), "check", "testdata/clean.jsonl", "-")
	if code != 1 || !strings.Contains(out, "<stdin>:entry 4: error: response id \"03\"") ||
		!strings.Contains(out, "checked 2 files:") {
		t.Errorf("check clean.jsonl - (HAR on stdin) = %d:\n%s", code, out)
	}
}

func TestCheckExitStatus(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		args    []string
		code    int
		stderr  string // substring
		summary bool   // a summary line is printed
	}{
		{"clean", []string{"check", "testdata/clean.jsonl"}, 0, "", true},
		{"findings", []string{"check", "testdata/unmatched.jsonl"}, 1, "", true},
		{"warnings only", []string{"check", "testdata/type-changed.jsonl"}, 1, "", true},
		{"missing file", []string{"check", "testdata/no-such-file.jsonl"}, 2, "testdata/no-such-file.jsonl", true},
		{"missing after findings", []string{"check", "testdata/unmatched.jsonl", "nope.har"}, 2, "nope.har", true},
		{"directory", []string{"check", dir}, 2, dir, true},
		{"bad flag", []string{"check", "-nope"}, 2, "flag provided but not defined", false},
		{"help", []string{"check", "-h"}, 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, nil, tt.args...)
			if code != tt.code {
				t.Errorf("exit status %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			if !strings.Contains(errOut, tt.stderr) {
				t.Errorf("stderr %q does not contain %q", errOut, tt.stderr)
			}
			if got := strings.Contains(out, "checked "); got != tt.summary {
				t.Errorf("summary printed: %v, want %v:\n%s", got, tt.summary, out)
			}
		})
	}
}

// Each capture is a session of its own: a request pending at the end of one
// file is reported there and does not match a response in the next.
func TestCheckFilesAreSessions(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	b := filepath.Join(dir, "b.jsonl")
	os.WriteFile(a, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"), 0o644)
	os.WriteFile(b, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"), 0o644)
	code, out, _ := runCmd(t, nil, "check", a, b)
	want := a + ":1: error: request 1 (ping) was never answered\n" +
		b + ":1: error: response id 1 matches no pending request\n" +
		"checked 2 files: 2 messages (1 request, 1 response, 0 notifications); 2 errors, 0 warnings\n"
	if code != 1 || out != want {
		t.Errorf("check a b = %d:\n%s\nwant:\n%s", code, out, want)
	}
}

// Format detection reads no more than it needs: it works on input that
// arrives one byte at a time.
func TestCheckOneByteReads(t *testing.T) {
	for _, name := range []string{"sse.har", "unmatched.jsonl", "clean.jsonl"} {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile("testdata/" + name + ".golden")
		if err != nil {
			t.Fatal(err)
		}
		_, out, _ := runCmd(t, iotest.OneByteReader(bytes.NewReader(data)), "check", "-")
		if diff := cmp.Diff(strings.ReplaceAll(string(want), "testdata/"+name, "<stdin>"), out); diff != "" {
			t.Errorf("%s read one byte at a time (-want +got):\n%s", name, diff)
		}
	}
}

// Findings are written as soon as they are found, so a capture that is
// still being recorded can be piped in.
func TestCheckStreams(t *testing.T) {
	pr, pw := io.Pipe()
	out := &signalWriter{lines: make(chan string, 10)}
	done := make(chan int)
	go func() { done <- run([]string{"-"}, pr, out, io.Discard) }()
	fmt.Fprintln(pw, `{"jsonrpc":"2.0","id":"x","result":{}}`)
	select {
	case line := <-out.lines:
		if !strings.Contains(line, `<stdin>:1: error: response id "x" matches no pending request`) {
			t.Errorf("first output %q", line)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no finding written while the input stays open")
	}
	fmt.Fprintln(pw, `{"jsonrpc":"2.0","id":"y","method":"ping"}`)
	pw.Close()
	select {
	case code := <-done:
		if code != 1 {
			t.Errorf("exit status %d, want 1", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("check did not end after its input was closed")
	}
}

// signalWriter sends each complete line written to it on a channel.
type signalWriter struct {
	buf   bytes.Buffer
	lines chan string
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			w.buf.Reset()
			w.buf.WriteString(line)
			return len(p), nil
		}
		select {
		case w.lines <- line:
		default:
		}
	}
}

// The memory check reads captures line by line: a capture far larger than
// any buffer, produced on the fly, is checked without holding it.
func TestCheckLargeStream(t *testing.T) {
	pairs := 100000
	if testing.Short() {
		pairs = 5000
	}
	r := &generated{n: pairs}
	code, out, _ := runCmd(t, bufio.NewReaderSize(r, 4096), "check", "-")
	want := fmt.Sprintf("checked 1 file: %d messages (%d requests, %d responses, 0 notifications); no findings\n", 2*pairs, pairs, pairs)
	if code != 0 || out != want {
		t.Errorf("check of %d generated pairs = %d:\n%s", pairs, code, out)
	}
}

// generated produces a capture of n request/response pairs.
type generated struct {
	n, i int
	buf  []byte
}

func (g *generated) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		if g.i == g.n {
			return 0, io.EOF
		}
		g.buf = fmt.Appendf(g.buf[:0], `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t"}}`+"\n"+
			`{"jsonrpc":"2.0","id":%d,"result":{"content":[]}}`+"\n", g.i, g.i)
		g.i++
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

// The habits of a Unix tool.
func TestUnixHabits(t *testing.T) {
	// -h prints the full usage to standard output and exits 0; a usage
	// error goes to standard error with status 2. (For every command:
	// TestUnixHabitsEveryCommand in package main.)
	code, out, _ := runCmd(t, nil, "check", "-h")
	for _, want := range append([]string{"JSON Lines", "HAR 1.2", `">"`, `"<"`, "Exit status: 0", "standard input", "-json"}, kinds...) {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("check -h does not tell %q", want)
		}
	}
	code, out, errOut := runCmd(t, nil, "check", "-nope")
	if code != 2 || out != "" || !strings.Contains(errOut, "usage") {
		t.Errorf("rpcid check -nope = %d, stdout %q, stderr %q; want 2, nothing on stdout and the usage on stderr", code, out, errOut)
	}
	// No FILE and standard input not a terminal: standard input is read.
	clean, err := os.ReadFile("testdata/clean.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut = runCmd(t, bytes.NewReader(clean), "check")
	if code != 0 || errOut != "" || out != "checked 1 file: 12 messages (5 requests, 5 responses, 2 notifications); no findings\n" {
		t.Errorf("cat clean.jsonl | rpcid check = %d, %q, stderr %q", code, out, errOut)
	}
	// An empty pipe given as "-" is nothing to check; with no FILE it is
	// no capture, and the sample is checked, said on stderr.
	code, out, _ = runCmd(t, strings.NewReader(""), "check", "-")
	if code != 1 || !strings.Contains(out, "<stdin>: error: nothing to check: the file is empty") {
		t.Errorf("rpcid check - < empty pipe = %d, %q", code, out)
	}
	code, out, errOut = runCmd(t, strings.NewReader(""), "check")
	if code != 1 || !strings.Contains(errOut, "no FILE given and standard input is empty: checking the embedded sample") || !strings.HasPrefix(out, "sample.jsonl:") {
		t.Errorf("rpcid check < empty pipe = %d, %q, stderr %q", code, out, errOut)
	}
	// A terminal: the embedded sample, said on stderr.
	code, _, errOut = runCmd(t, terminal{strings.NewReader("")}, "check")
	if code != 1 || !strings.Contains(errOut, "standard input is a terminal: checking the embedded sample") {
		t.Errorf("rpcid check at a terminal = %d, stderr %q", code, errOut)
	}
	// A directory or a missing file: could not read, not counted, said
	// once without stuttering.
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.jsonl")
	code, out, errOut = runCmd(t, nil, "check", dir, missing, "testdata/clean.jsonl")
	wantErr := "rpcid check: could not read " + dir + ": is a directory\n" +
		"rpcid check: could not read " + missing + ": no such file or directory\n"
	wantOut := "checked 1 file: 12 messages (5 requests, 5 responses, 2 notifications); no findings; 2 files could not be read\n"
	if code != 2 || errOut != wantErr || out != wantOut {
		t.Errorf("check DIR MISSING clean.jsonl = %d\nstdout %q\nstderr %q\nwant %q and %q", code, out, errOut, wantOut, wantErr)
	}
}

var (
	columnFact  = regexp.MustCompile(`^(?:batch element \d+: )?not JSON at column (\d+)`)
	elementFact = regexp.MustCompile(`batch element (\d+): `)
	eventFact   = regexp.MustCompile(`^(?:request|response) body: event (\d+): `)
)

// checkFacts checks that a -json finding carries as members the facts its
// message states.
func checkFacts(t *testing.T, f finding) {
	t.Helper()
	atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
	if m := columnFact.FindStringSubmatch(f.Message); m != nil && f.Column != atoi(m[1]) {
		t.Errorf("%q: column member %d", f.Message, f.Column)
	}
	if m := elementFact.FindStringSubmatch(f.Message); m != nil && f.Kind == kindInvalid && f.Element != atoi(m[1]) {
		t.Errorf("%q: element member %d", f.Message, f.Element)
	}
	if m := eventFact.FindStringSubmatch(f.Message); m != nil && f.Kind == kindInvalid && f.Event != atoi(m[1]) {
		t.Errorf("%q: event member %d", f.Message, f.Event)
	}
	for _, body := range []string{"request", "response"} {
		if strings.HasPrefix(f.Message, body+" body: ") && f.Kind == kindInvalid && f.Body != body {
			t.Errorf("%q: body member %q", f.Message, f.Body)
		}
	}
	switch f.Kind {
	case kindUnanswered:
		if f.Request == nil || f.Request.Line != f.Line || f.Request.Entry != f.Entry || f.Method == "" {
			t.Errorf("%q: request %+v, method %q", f.Message, f.Request, f.Method)
		}
	case kindTypeChanged, kindSpellingChanged, kindDuplicate, kindAnsweredTwice:
		if f.Request == nil || f.Method == "" {
			t.Errorf("%q: no request or method member", f.Message)
		}
	case kindUnsafeInteger, kindFractional:
		if f.Number == nil {
			t.Errorf("%q: no number member", f.Message)
		}
	case kindNullResponse:
		named := false // the message names a request
		for _, s := range []string{"pending in the same HTTP exchange: ", "pending on the same WebSocket connection: ", "not already taken by a null-id response: ", "which was sent with a null id", "requests pending with a null id, "} {
			named = named || strings.Contains(f.Message, s)
		}
		if named != (f.Request != nil) {
			t.Errorf("%q: request member %+v", f.Message, f.Request)
		}
	}
	if strings.Contains(f.Message, "direction markers") != (f.Hint != "") {
		t.Errorf("%q: hint member %q", f.Message, f.Hint)
	}
	if strings.Contains(f.Message, "already answered at") && f.AnsweredLine+f.AnsweredEntry == 0 {
		t.Errorf("%q: no answeredLine or answeredEntry", f.Message)
	}
}

// With no FILE, a standard input that stays open without sending anything
// is waited for, and check says so on standard error once stdinWait has
// passed; what arrives then is checked.
func TestCheckStdinWaiting(t *testing.T) {
	defer func(d time.Duration) { stdinWait = d }(stdinWait)
	stdinWait = 10 * time.Millisecond
	pr, pw := io.Pipe()
	go func() {
		time.Sleep(200 * time.Millisecond)
		io.WriteString(pw, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"+`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n")
		pw.Close()
	}()
	code, out, errOut := runCmd(t, pr, "check")
	if code != 0 || out != "checked 1 file: 2 messages (1 request, 1 response, 0 notifications); no findings\n" {
		t.Errorf("check = %d, %q", code, out)
	}
	if want := "rpcid check: no FILE given: waiting for a capture on standard input, which is open but has sent nothing yet (give a FILE, or close standard input to check the embedded sample)\n"; errOut != want {
		t.Errorf("stderr = %q, want %q", errOut, want)
	}
	// Input that arrives at once draws no note.
	stdinWait = time.Minute
	if _, _, errOut := runCmd(t, strings.NewReader(`{"jsonrpc":"2.0","method":"n"}`+"\n"), "check"); errOut != "" {
		t.Errorf("stderr with input at once = %q", errOut)
	}
}

// Usage errors about FILEs name the file and, for a name that looks like a
// flag after the FILEs, where flags go. (Other usage errors:
// TestUsageMessages in package main.)
func TestCheckUsageMessages(t *testing.T) {
	code, _, errOut := runCmd(t, nil, "check", "testdata/clean.jsonl", "-json")
	first, _, _ := strings.Cut(errOut, "\n")
	if want := "rpcid check: could not read -json: no such file or directory (flags go before the FILEs)"; code != 2 || first != want {
		t.Errorf("rpcid check testdata/clean.jsonl -json = %d, stderr %q\nwant 2 and first line %q", code, errOut, want)
	}
}

// Text from a capture cannot forge a finding line or reach the terminal as
// an escape sequence.
func TestCheckEscapesControlCharacters(t *testing.T) {
	in := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\\n<stdin>:1: error: \\u001b[31mforged\\u001b[0m\"}\n"
	code, out, _ := runCmd(t, strings.NewReader(in), "check", "-")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) != 2 { // the unanswered request, then the summary
		t.Fatalf("output has %d lines, want 2:\n%s", len(lines), out)
	}
	if strings.ContainsRune(out, '\x1b') {
		t.Errorf("output holds a raw ESC:\n%q", out)
	}
	if want := `(tools/call\n<stdin>:1: error: \u001b[31mforged\u001b[0m)`; !strings.Contains(lines[0], want) {
		t.Errorf("finding = %q, want it to contain %q", lines[0], want)
	}
}

// A file that cannot be read is named in the summary, not hidden behind "no
// findings".
func TestCheckSummaryNamesUnreadableFiles(t *testing.T) {
	code, out, errOut := runCmd(t, strings.NewReader(""), "check", "testdata/does-not-exist.jsonl")
	if code != 2 || !strings.Contains(out, "; 1 file could not be read") || !strings.Contains(errOut, "does-not-exist.jsonl") {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 2, the summary naming 1 unreadable file, and the file in stderr", code, out, errOut)
	}
}
