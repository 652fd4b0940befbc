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

// A JSON Lines session keeps state only for the requests pending and the
// last answeredMax answered: after many more answered requests no more is
// left behind.
func TestSessionStateBounded(t *testing.T) {
	c := &checker{w: bufio.NewWriter(io.Discard), otherEvents: map[string]int{}}
	s := newSession(c, "x")
	n := answeredMax + 1000
	for i := 0; i < n; i++ {
		s.line(2*i+1, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i)))
		s.line(2*i+2, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":"%d","result":{}}`, i)))
	}
	s.line(2*n+1, []byte(`{"jsonrpc":"2.0","id":7.5,"method":"ping"}`))
	sd := &s.t.sides[0]
	if s.t.pending != 1 || sd.len() != answeredMax+1 || len(s.t.slab) != answeredMax+1 || len(sd.js) != 1 || len(s.entryRequests) != 0 {
		t.Errorf("after %d answered requests and one pending: pending %d, index %d, slab %d, js %d, entry requests %d; want 1, %d, %d, 1, 0",
			n, s.t.pending, sd.len(), len(s.t.slab), len(sd.js), len(s.entryRequests), answeredMax+1, answeredMax+1)
	}
	if c.warnings != n+1 || c.errors != 0 {
		t.Errorf("%d warnings, %d errors; want %d type changes, one fractional id and no errors", c.warnings, c.errors, n+1)
	}
}

// The sessions of a HAR share the bound on answered requests, and idle
// ones are forgotten beyond maxParts: after entries to more origins than
// that, each answered at once, at most maxParts sessions are kept and the
// answered requests kept over all sessions are answeredMax.
func TestHARSessionsBounded(t *testing.T) {
	c := &checker{w: bufio.NewWriter(io.Discard), otherEvents: map[string]int{}}
	s := newSession(c, "x")
	s.har = true
	n := answeredMax + 1000
	for i := 0; i < n; i++ {
		s.harEntry(i+1, pingEntry(t, fmt.Sprintf("https://s%d.example.test/mcp", i%(2*maxParts)), i, true))
	}
	s.finish()
	answered := 0
	for _, a := range s.t.ring.reqs {
		if a.t == nil {
			continue
		}
		if r := a.t.at(a.x); r.flags&fLive != 0 && r.flags&fAnswered != 0 {
			answered++
		}
	}
	if len(s.parts) > maxParts || len(s.partIdx) != len(s.parts) || answered != answeredMax || s.t.ring.n != answeredMax {
		t.Errorf("after %d entries to %d origins: %d sessions (%d named), %d answered requests kept, ring %d; want at most %d, the same, %d, %d",
			n, 2*maxParts, len(s.parts), len(s.partIdx), answered, s.t.ring.n, maxParts, answeredMax, answeredMax)
	}
	if c.errors+c.warnings != 0 {
		t.Errorf("%d errors, %d warnings; want none", c.errors, c.warnings)
	}
}

// pingEntry is a HAR entry of a ping with id to url, answered if answer
// is true (else the response is 202 without a body).
func pingEntry(t *testing.T, url string, id int, answer bool) *harEntry {
	t.Helper()
	resp := fmt.Sprintf(`"response":{"status":200,"content":{"mimeType":"application/json","text":%q}}`, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id))
	if !answer {
		resp = `"response":{"status":202,"content":{"size":0}}`
	}
	var e harEntry
	entry := fmt.Sprintf(`{"request":{"method":"POST","url":%q,"postData":{"mimeType":"application/json","text":%q}},%s}`,
		url, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id), resp)
	if err := json.Unmarshal([]byte(entry), &e); err != nil {
		t.Fatal(err)
	}
	return &e
}

// Sessions with requests pending are never shared or forgotten, however
// many: 3000 sessions each send a request with id 0, and the answers come
// after all of them. Sharing a table (as before) made the ids collide:
// duplicates and second answers that were not.
func TestHARManySessionsPending(t *testing.T) {
	var c checker
	c.w = bufio.NewWriter(io.Discard)
	c.otherEvents = map[string]int{}
	s := newSession(&c, "x")
	s.har = true
	const n = 3 * maxParts
	for i := 0; i < n; i++ {
		s.harEntry(i+1, pingEntry(t, fmt.Sprintf("https://s%d.example.test/mcp", i), 0, false))
	}
	if len(s.parts) != n {
		t.Errorf("%d sessions with a request pending, kept %d", n, len(s.parts))
	}
	// The answers, on each session's GET stream.
	for i := 0; i < n; i++ {
		var e harEntry
		entry := fmt.Sprintf(`{"request":{"method":"GET","url":"https://s%d.example.test/mcp"},"response":{"status":200,"content":{"mimeType":"text/event-stream","text":%q}}}`,
			i, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{}}\n\n")
		if err := json.Unmarshal([]byte(entry), &e); err != nil {
			t.Fatal(err)
		}
		s.harEntry(n+i+1, &e)
	}
	s.finish()
	if c.errors+c.warnings != 0 {
		t.Errorf("%d errors, %d warnings; want none", c.errors, c.warnings)
	}
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

// A long-lived HTTP+SSE session (2024-11-05 transport) in one HAR: the GET
// stream, listed first, carries the answers to n POSTs listed after it,
// with comments, event ids, multi-line data and an endpoint event; it
// checks clean, and a server request in the stream is answered by a POST.
func TestLongLivedSSEHAR(t *testing.T) {
	n := 3000
	var stream strings.Builder
	stream.WriteString("event: endpoint\ndata: /messages?sessionId=1\n\n: keep-alive\n\n")
	stream.WriteString("event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"s-1\",\"method\":\"ping\"}\n\n")
	for i := 0; i < n; i++ {
		if i%3 == 0 {
			fmt.Fprintf(&stream, "id: %d\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata: \"id\":%d,\"result\":{\"n\":%d}}\r\n\r\n", i, i, i)
		} else {
			fmt.Fprintf(&stream, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{}}\n\n", i)
		}
		if i%100 == 0 {
			stream.WriteString(": ping\n\n")
		}
	}
	type content struct {
		MimeType string `json:"mimeType"`
		Text     string `json:"text"`
	}
	type entry struct {
		Request struct {
			Method   string   `json:"method"`
			PostData *content `json:"postData,omitempty"`
		} `json:"request"`
		Response struct {
			Status  int     `json:"status"`
			Content content `json:"content"`
		} `json:"response"`
	}
	var entries []entry
	var get entry
	get.Request.Method = "GET"
	get.Response.Status = 200
	get.Response.Content = content{"text/event-stream", stream.String()}
	entries = append(entries, get)
	post := func(body string) {
		var e entry
		e.Request.Method = "POST"
		e.Request.PostData = &content{"application/json", body}
		e.Response.Status = 202
		e.Response.Content = content{"text/plain", "Accepted"}
		entries = append(entries, e)
	}
	for i := 0; i < n; i++ {
		post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t"}}`, i))
		if i == n/2 {
			post(`{"jsonrpc":"2.0","id":"s-1","result":{}}`)
		}
	}
	har, err := json.Marshal(map[string]any{"log": map[string]any{"version": "1.2", "entries": entries}})
	if err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCmd(t, bytes.NewReader(har), "check", "-")
	want := fmt.Sprintf("checked 1 file: %d messages (%d requests, %d responses, 0 notifications); 1 SSE event of other types than message not examined (endpoint 1); no findings\n", 2*n+2, n+1, n+1)
	if code != 0 || out != want || errOut != "" {
		t.Errorf("exit %d, stderr %q, output (%d bytes) ends\n%s\nwant\n%s", code, errOut, len(out), out[max(0, len(out)-600):], want)
	}
}

// A HAR is recognized by its log member wherever it
// stands, even after a member longer than a read buffer, and read one byte
// at a time.
func TestHARLogAfterLongMember(t *testing.T) {
	har := `{"comment":"` + strings.Repeat("c", 200_000) + `","log":{"entries":[{"request":{"method":"POST","postData":{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"}},"response":{"status":200,"content":{"mimeType":"application/json","text":"{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":{}}"}}}]}}`
	for _, r := range []io.Reader{strings.NewReader(har), iotest.OneByteReader(strings.NewReader(har))} {
		_, out, _ := runCmd(t, r, "check", "-")
		if !strings.HasPrefix(out, `<stdin>:entry 1: warning: response id "1" matches request 1 (entry 1, ping)`) {
			t.Errorf("output %.300q", out)
		}
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

// Answered requests with long ids are forgotten by the bytes they hold, not
// only by their number: 300 answered requests with ids of 1 MiB keep at most
// answeredBytesMax bytes, and a second answer to a recent one is still
// recognized.
func TestAnsweredBytesBounded(t *testing.T) {
	var out bytes.Buffer
	c := &checker{w: bufio.NewWriter(&out), otherEvents: map[string]int{}}
	s := newSession(c, "x")
	long := strings.Repeat("x", 1<<20)
	const n = 300
	for i := 0; i < n; i++ {
		id := fmt.Sprintf(`"%s%d"`, long, i)
		s.line(2*i+1, []byte(`{"jsonrpc":"2.0","id":`+id+`,"method":"ping"}`))
		s.line(2*i+2, []byte(`{"jsonrpc":"2.0","id":`+id+`,"result":{}}`))
	}
	g := s.t.ring
	if g.bytes > answeredBytesMax || g.n < answeredBytesMax/(len(long)+4)-1 || g.n >= n {
		t.Errorf("after %d answered requests with 1 MiB ids: %d remembered, %d bytes; want at most %d bytes, about %d requests",
			n, g.n, g.bytes, answeredBytesMax, answeredBytesMax/(len(long)+4))
	}
	held := 0
	for i := range s.t.slab {
		held += len(s.t.slab[i].text)
	}
	if held != g.bytes {
		t.Errorf("the table holds %d bytes of ids, the ring counts %d", held, g.bytes)
	}
	id := fmt.Sprintf(`"%s%d"`, long, n-1)
	s.line(2*n+1, []byte(`{"jsonrpc":"2.0","id":`+id+`,"result":{}}`))
	c.w.Flush()
	if c.errors != 1 || !strings.Contains(out.String(), "is a second answer") {
		t.Errorf("a second answer to the last request: %d errors, output %q", c.errors, out.String())
	}
}

// The SSE events remembered for redeliveries are bounded by number and by
// the bytes of their ids, over all sessions of a HAR: an event replayed
// after the last seenEventsMax is still a redelivery, one replayed after
// they were forgotten is read as a new message.
func TestSeenEventsBounded(t *testing.T) {
	c := &checker{w: bufio.NewWriter(io.Discard), otherEvents: map[string]int{}}
	s := newSession(c, "x")
	s.har = true
	event := func(id string) []byte {
		return []byte("id: " + id + "\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
	}
	const extra = 100
	for i := 0; i < seenEventsMax+extra; i++ {
		s.use(fmt.Sprintf("https://s%d.example.test/mcp ", i%3), i+1)
		s.sse(position{entry: i + 1}, "", fromServer, event(fmt.Sprintf("e%d", i)))
	}
	g := &s.seen
	held := 0
	for _, p := range s.parts {
		held += len(p.events)
	}
	if g.n != seenEventsMax || held != seenEventsMax || s.counts.notifications != seenEventsMax+extra || s.counts.redelivered != 0 {
		t.Errorf("after %d events: %d remembered, %d held by sessions, %d notifications, %d redelivered; want %d, %d, %d, 0",
			seenEventsMax+extra, g.n, held, s.counts.notifications, s.counts.redelivered, seenEventsMax, seenEventsMax, seenEventsMax+extra)
	}
	last := seenEventsMax + extra - 1
	s.resumed = true // the replays come on resumed streams (GET with Last-Event-ID)
	s.use(fmt.Sprintf("https://s%d.example.test/mcp ", last%3), last+2)
	s.sse(position{entry: last + 2}, "", fromServer, event(fmt.Sprintf("e%d", last)))
	if s.counts.redelivered != 1 {
		t.Errorf("the last event replayed: %d redelivered, want 1", s.counts.redelivered)
	}
	s.use("https://s0.example.test/mcp ", last+3)
	s.sse(position{entry: last + 3}, "", fromServer, event("e0"))
	if s.counts.redelivered != 1 || s.counts.notifications != seenEventsMax+extra+1 {
		t.Errorf("the first event, forgotten, replayed: %d redelivered, %d notifications; want 1, %d", s.counts.redelivered, s.counts.notifications, seenEventsMax+extra+1)
	}

	// Ids of 1 MiB: at most seenEventBytesMax bytes of them are kept.
	s = newSession(c, "y")
	s.har = true
	s.use("https://s.example.test/mcp ", 1)
	long := strings.Repeat("x", 1<<20)
	const n = 40
	for i := 0; i < n; i++ {
		s.sse(position{entry: 1}, "", fromServer, event(fmt.Sprintf("%s%d", long, i)))
	}
	g = &s.seen
	if g.bytes > seenEventBytesMax || g.n != seenEventBytesMax/(len(long)+2) || len(s.p.events) != g.n {
		t.Errorf("after %d events with 1 MiB ids: %d remembered (%d held), %d bytes; want at most %d bytes, %d events",
			n, g.n, len(s.p.events), g.bytes, seenEventBytesMax, seenEventBytesMax/(len(long)+2))
	}
	s.resumed = true
	s.sse(position{entry: 1}, "", fromServer, event(fmt.Sprintf("%s%d", long, n-1)))
	if s.counts.redelivered != 1 {
		t.Errorf("the last long event replayed: %d redelivered, want 1", s.counts.redelivered)
	}
}

// partKey: a HAR entry's session is its endpoint (scheme and host in lower
// case, the path as sent, without query or fragment) and the Mcp-Session-Id
// of its request, or else the one its response assigns.
func TestPartKey(t *testing.T) {
	entry := func(method, url, reqSID, respSID string) *harEntry {
		hdr := func(sid string) string {
			if sid == "" {
				return `[]`
			}
			return fmt.Sprintf(`[{"name":"Content-Type","value":"application/json"},{"name":"mcp-session-id","value":%q}]`, sid)
		}
		var e harEntry
		text := fmt.Sprintf(`{"request":{"method":%q,"url":%q,"headers":%s},"response":{"status":200,"headers":%s,"content":{}}}`,
			method, url, hdr(reqSID), hdr(respSID))
		if err := json.Unmarshal([]byte(text), &e); err != nil {
			t.Fatal(err)
		}
		return &e
	}
	tests := []struct {
		e    *harEntry
		want string
	}{
		{entry("POST", "https://gw.example/servers/github/mcp", "", "a1"), "https://gw.example/servers/github/mcp a1"},
		{entry("POST", "https://gw.example/servers/slack/mcp", "", "b1"), "https://gw.example/servers/slack/mcp b1"},
		{entry("POST", "HTTPS://GW.Example/servers/github/mcp?profile=x#f", "a1", ""), "https://gw.example/servers/github/mcp a1"},
		{entry("POST", "https://gw.example/Servers/GitHub/mcp", "a1", ""), "https://gw.example/Servers/GitHub/mcp a1"},
		{entry("POST", "https://gw.example", "", ""), "https://gw.example/ "},
		{entry("POST", "https://gw.example:8443/mcp", "", ""), "https://gw.example:8443/mcp "},
		// The request's session wins over one its response names.
		{entry("GET", "https://gw.example/mcp", "a1", "a2"), "https://gw.example/mcp a1"},
		{entry("POST", "/mcp", "a1", ""), " a1"},
		{entry("POST", "https://gw.example/mcp", " a1\t", ""), "https://gw.example/mcp a1"},
		{entry("POST", "https://gw.example/messages?sessionId=s9", "", "a1"), "sse s9"},
	}
	for _, tt := range tests {
		if got := partKey(1, tt.e); got != tt.want {
			t.Errorf("partKey(%s %s) = %q, want %q", tt.e.Request.Method, tt.e.Request.URL.v, got, tt.want)
		}
	}
}

// An event stream that starts with a byte order mark (which the SSE
// standard skips, as httpid does) still holds its first event: the request
// it answers is answered.
func TestHARStreamByteOrderMark(t *testing.T) {
	c := &checker{w: bufio.NewWriter(io.Discard), otherEvents: map[string]int{}}
	s := newSession(c, "x")
	s.har = true
	var e harEntry
	entry := fmt.Sprintf(`{"request":{"method":"POST","url":"https://s.example.test/mcp","postData":{"mimeType":"application/json","text":%q}},`+
		`"response":{"status":200,"content":{"mimeType":"text/event-stream","text":%q}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`, "\ufeffdata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n\n")
	if err := json.Unmarshal([]byte(entry), &e); err != nil {
		t.Fatal(err)
	}
	s.harEntry(1, &e)
	s.finish()
	if c.errors+c.warnings != 0 || s.counts.responses != 1 {
		t.Errorf("%d errors, %d warnings, %d responses; want none, none, 1", c.errors, c.warnings, s.counts.responses)
	}
}

// A response in a HAR entry's response body answers the requests of that
// entry's HTTP exchange before a pending request of an earlier entry with
// an Equal id, as httpid answers a POST's own requests first: the earlier
// request is the one left unanswered. Without an Equal id of its own (a GET
// stream), an exchange's responses answer the earliest request sent.
func TestHAROwnExchangeFirst(t *testing.T) {
	req := func(id, method string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"}`
	}
	res := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"result":{}}` }
	events := func(ids ...string) string {
		var b strings.Builder
		for _, id := range ids {
			b.WriteString("event: message\ndata: " + res(id) + "\n\n")
		}
		return b.String()
	}
	accepted := func(body string) [6]any { return [6]any{"POST", "", body, 202, "", ""} }
	answered := func(body, mt, text string) [6]any { return [6]any{"POST", "", body, 200, mt, text} }
	stream := func(ids ...string) [6]any { return [6]any{"GET", "", "", 200, "text/event-stream", events(ids...)} }
	dup := func(entry int, id, method string, before int, beforeMethod string) string {
		return fmt.Sprintf("<stdin>:entry %d: error: request id %s (%s) sent while request %s (entry %d, %s) is still pending: their responses cannot be told apart\n", entry, id, method, id, before, beforeMethod)
	}
	never := func(entry int, id, method string) string { // each accepted with 202
		return fmt.Sprintf("<stdin>:entry %d: error: request %s (%s) was never answered (its HTTP response was 202 Accepted, with no answer in its body, and no event stream in the capture carries its answer)\n", entry, id, method)
	}
	typeChanged := "<stdin>:entry %d: warning: response id \"1\" matches request 1 (entry %d, %s) only under the rule: the id's JSON type changed from number to string in transit; SDKs that compare type and value (go-sdk, mcp-go's stdio and SSE transports, C#) drop this response\n"
	for _, c := range []struct {
		name    string
		entries [][6]any
		want    string
	}{
		{"JSON body", [][6]any{accepted(req("1", "a")), answered(req("1", "b"), "application/json", res("1"))},
			dup(2, "1", "b", 1, "a") + never(1, "1", "a")},
		{"event stream, type changed", [][6]any{accepted(req("1", "a")), answered(req("1", "b"), "text/event-stream", events(`"1"`))},
			dup(2, "1", "b", 1, "a") + fmt.Sprintf(typeChanged, 2, 2, "b") + never(1, "1", "a")},
		{"null ids", [][6]any{accepted(req("null", "a")), answered(req("null", "b"), "application/json", res("null"))},
			"<stdin>:entry 1: warning: request a has a null id: JSON-RPC 2.0 discourages it and MCP forbids it; its response cannot be told from a reply to an unreadable request\n" +
				"<stdin>:entry 2: warning: request b has a null id: JSON-RPC 2.0 discourages it and MCP forbids it; its response cannot be told from a reply to an unreadable request\n" +
				dup(2, "null", "b", 1, "a") + never(1, "null", "a")},
		// Its own first, then the earliest of the others.
		{"own, then the earliest", [][6]any{accepted(req("1", "a")), accepted(req("1", "b")), answered(req("1", "c"), "application/json", "["+res("1")+","+res("1")+"]")},
			dup(2, "1", "b", 1, "a") + dup(3, "1", "c", 1, "a") + never(2, "1", "b")},
		// A batch of two behind an earlier request: both answered, in the
		// order sent.
		{"own batch", [][6]any{accepted(req("1", "a")), answered("["+req("1", "b")+","+req("1", "c")+"]", "application/json", "["+res("1")+","+res(`"1"`)+"]")},
			dup(2, "1", "b", 1, "a") + dup(2, "1", "c", 1, "a") + fmt.Sprintf(typeChanged, 2, 2, "c") + never(1, "1", "a")},
		// Both of a batch leave the queue from behind the earlier request,
		// which the stream then answers, once.
		{"own batch, then the earlier", [][6]any{accepted(req("1", "a")),
			answered("["+req("1", "b")+","+req("1", "c")+"]", "application/json", "["+res("1")+","+res("1")+"]"), stream("1", "1")},
			dup(2, "1", "b", 1, "a") + dup(2, "1", "c", 1, "a") +
				"<stdin>:entry 3: error: response id 1 is a second answer: request 1 (entry 1, a) was already answered at entry 3\n"},
		// The requests left queued are answered in the order sent after
		// the last one left the queue, and one response more is a second
		// answer to the last answered.
		{"own last, then the rest", [][6]any{accepted(req("1", "a")), accepted(req("1", "b")), accepted(req("1", "c")),
			answered(req("1", "d"), "application/json", res("1")), stream("1", "1", "1", "1")},
			dup(2, "1", "b", 1, "a") + dup(3, "1", "c", 1, "a") + dup(4, "1", "d", 1, "a") +
				"<stdin>:entry 5: error: response id 1 is a second answer: request 1 (entry 3, c) was already answered at entry 5\n"},
		{"own first of a batch, then the rest", [][6]any{accepted(req("1", "a")),
			answered("["+req("1", "b")+","+req("1", "c")+"]", "application/json", res(`"1"`)), stream("1", "1", "1")},
			dup(2, "1", "b", 1, "a") + dup(2, "1", "c", 1, "a") + fmt.Sprintf(typeChanged, 2, 2, "b") +
				"<stdin>:entry 3: error: response id 1 is a second answer: request 1 (entry 2, c) was already answered at entry 3\n"},
		// A stream that answers no request of its exchange answers the
		// earliest.
		{"GET stream", [][6]any{accepted(req("1", "a")), accepted(req("1", "b")), stream("1")},
			dup(2, "1", "b", 1, "a") + never(2, "1", "b")},
		// A request sent with the id of a cancelled one, answered by its
		// own exchange while another with the id is pending: one response
		// more than the requests take is still the cancelled one's late
		// answer.
		{"cancelled id reused", [][6]any{accepted(req("1", "a")), accepted(req("1", "b")),
			accepted(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`),
			answered(req("1", "c"), "application/json", res("1")), stream("1", "1")},
			dup(2, "1", "b", 1, "a") +
				"<stdin>:entry 4: error: request id 1 (c) reuses the id of request 1 (entry 1, a), which its sender cancelled: MCP forbids reusing a request id within a session, and a late answer to the cancelled request would be taken for this one's\n" +
				dup(4, "1", "c", 2, "b")},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, out, _ := runCmd(t, strings.NewReader(harOf(t, c.entries...)), "check", "-")
			findings, _, _ := strings.Cut(out, "checked ")
			if diff := cmp.Diff(c.want, findings); diff != "" {
				t.Errorf("check:\n%s\nfindings (-want +got):\n%s", out, diff)
			}
		})
	}
}

// TestHARCutOrBrokenInEntry checks the findings of a HAR file cut short, or
// not JSON, inside an entry (the first or a later one, in its request or its
// response) or between entries: each says where the file stops being valid,
// with the byte offset where the input ends or of the byte at fault (not
// where the entry starts), and none says the file has no entries.
func TestHARCutOrBrokenInEntry(t *testing.T) {
	const head = `{"log":{"version":"1.2","entries":[`
	entry := func(id int, status int) string {
		req, _ := json.Marshal(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call"}`, id))
		resp, _ := json.Marshal(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, id))
		if status == 202 {
			resp = []byte(`""`)
		}
		return fmt.Sprintf(`{"request":{"method":"POST","url":"http://127.0.0.1/mcp","postData":{"mimeType":"application/json","text":%s}},`+
			`"response":{"status":%d,"content":{"mimeType":"application/json","text":%s}},"time":5}`, req, status, resp)
	}
	answered, accepted := entry(1, 200), entry(1, 202)
	second := entry(2, 200)
	notHAR := `{"request":{"method":"POST","url":"http://127.0.0.1/mcp","postData":{"text":5}},"response":{"status":200}}`
	page := `{"request":{"method":"GET","url":"http://127.0.0.1/"},"response":{"status":200,"content":{"mimeType":"text/html","text":"<p>"}}}`
	// upTo cuts e just before the first mark in it.
	upTo := func(e, mark string) string {
		i := strings.Index(e, mark)
		if i < 0 {
			t.Fatalf("%q not in %s", mark, e)
		}
		return e[:i]
	}
	// withX puts an x, which is no JSON, just after the first mark in e.
	withX := func(e, mark string) string {
		cut := upTo(e, mark) + mark
		return cut + "x" + e[len(cut):]
	}
	xAt := func(har string) int { return strings.Index(har, `:x`) + 1 }
	for _, c := range []struct {
		name string
		har  string
		want func(har string) string // the findings, without the summary
	}{
		{"first entry, in its request", head + upTo(answered, `"url"`), func(har string) string {
			return fmt.Sprintf("<stdin>: error: nothing to check: not a valid HAR file: it is cut short inside entry 1 (the input ends at byte offset %d), and no entry could be read\n", len(har))
		}},
		{"first entry, in its response", head + upTo(answered, `"time"`), func(har string) string {
			return fmt.Sprintf("<stdin>: error: nothing to check: not a valid HAR file: it is cut short inside entry 1 (the input ends at byte offset %d), and no entry could be read\n", len(har))
		}},
		{"first entry, after a byte order mark", "\ufeff" + head + upTo(answered, `"status"`), func(har string) string {
			return fmt.Sprintf("<stdin>: error: nothing to check: not a valid HAR file: it is cut short inside entry 1 (the input ends at byte offset %d), and no entry could be read\n", len(har))
		}},
		{"later entry, in its request", head + answered + "," + upTo(second, `"postData"`), func(har string) string {
			return fmt.Sprintf("<stdin>:entry 2: error: not a valid HAR file: it is cut short inside entry 2 (the input ends at byte offset %d)\n", len(har))
		}},
		{"later entry, in its response", head + answered + "," + upTo(second, `}},"time"`), func(har string) string {
			return fmt.Sprintf("<stdin>:entry 2: error: not a valid HAR file: it is cut short inside entry 2 (the input ends at byte offset %d)\n", len(har))
		}},
		{"later entry, a request waiting for its answer", head + accepted + "," + upTo(second, `"response"`), func(har string) string {
			return fmt.Sprintf("<stdin>:entry 2: error: not a valid HAR file: it is cut short inside entry 2 (the input ends at byte offset %[1]d)\n"+
				"<stdin>:entry 1: error: request 1 (tools/call) has no response in the capture: the HAR file, which may hold it after entry 1, is not valid from there on (it is cut short inside entry 2: the input ends at byte offset %[1]d); its HTTP response was 202 Accepted\n", len(har))
		}},
		{"first entry, not JSON in its request", head + withX(answered, `"request":`) + "]}}", func(har string) string {
			return fmt.Sprintf("<stdin>: error: nothing to check: not a valid HAR file inside entry 1: invalid character 'x' looking for beginning of value at byte offset %d, and no entry could be read\n", xAt(har))
		}},
		{"later entry, not JSON in its response", head + answered + "," + withX(second, `"response":`) + "]}}", func(har string) string {
			return fmt.Sprintf("<stdin>:entry 2: error: not a valid HAR file inside entry 2: invalid character 'x' looking for beginning of value at byte offset %d\n", xAt(har))
		}},
		{"no comma between entries", head + answered + " " + second + "]}}", func(har string) string {
			return fmt.Sprintf("<stdin>: error: not a valid HAR file after entry 1: expected comma after array element at byte offset %d\n", len(head+answered+" "))
		}},
		{"after an entry and its comma", head + answered + ",", func(har string) string {
			return fmt.Sprintf("<stdin>: error: not a valid HAR file: it is cut short after entry 1 (the input ends at byte offset %d)\n", len(har))
		}},
		{"after the entries", head + answered + "]", func(har string) string {
			return fmt.Sprintf("<stdin>: error: not a valid HAR file: it is cut short after entry 1 (the input ends at byte offset %d)\n", len(har))
		}},
		{"an entry that is not a HAR entry, then one cut short", head + notHAR + "," + upTo(second, `"response"`), func(har string) string {
			return "<stdin>:entry 1: error: not a HAR entry: json: cannot unmarshal number into Go struct field harContent.request.postData.text of type string\n" +
				fmt.Sprintf("<stdin>:entry 2: error: not a valid HAR file: it is cut short inside entry 2 (the input ends at byte offset %d)\n", len(har)) +
				"<stdin>: error: nothing to check: the 1 entry read before the file stops being valid is not a HAR entry\n"
		}},
		{"an entry without JSON-RPC, then one cut short", head + page + "," + upTo(second, `"response"`), func(har string) string {
			return fmt.Sprintf("<stdin>:entry 2: error: not a valid HAR file: it is cut short inside entry 2 (the input ends at byte offset %d)\n", len(har)) +
				"<stdin>: error: nothing to check: the 1 entry read before the file stops being valid has no JSON-RPC 2.0 message (bodies not examined: 1 text/html)\n"
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, strings.NewReader(c.har), "check", "-")
			findings, _, _ := strings.Cut(out, "checked ")
			if want := c.want(c.har); code != 1 || findings != want || errOut != "" {
				t.Errorf("check of\n%s\n= %d, stderr %q, findings:\n%s\nwant 1 and findings:\n%s", c.har, code, errOut, findings, want)
			}
		})
	}

	// Cut anywhere in its entries, a HAR file is said to be cut short
	// inside the entry the cut is in (or after the one before it), where
	// its input ends.
	full := head + answered + "," + second + "]}}"
	second0 := len(head) + len(answered) + 1
	for n := len(head) + 1; n < len(full)-2; n++ {
		har := full[:n]
		_, out, _ := runCmd(t, strings.NewReader(har), "check", "-")
		var want string
		switch {
		case n < second0-1:
			want = fmt.Sprintf("<stdin>: error: nothing to check: not a valid HAR file: it is cut short inside entry 1 (the input ends at byte offset %d), and no entry could be read\n", n)
		case n <= second0:
			want = fmt.Sprintf("<stdin>: error: not a valid HAR file: it is cut short after entry 1 (the input ends at byte offset %d)\n", n)
		case n < len(full)-3:
			want = fmt.Sprintf("<stdin>:entry 2: error: not a valid HAR file: it is cut short inside entry 2 (the input ends at byte offset %d)\n", n)
		default:
			want = fmt.Sprintf("<stdin>: error: not a valid HAR file: it is cut short after entry 2 (the input ends at byte offset %d)\n", n)
		}
		if findings, _, _ := strings.Cut(out, "checked "); findings != want {
			t.Errorf("check of the HAR cut after %d bytes, %q, says\n%s\nwant findings\n%s", n, har[max(0, n-20):], out, want)
		}
	}
}

// TestFractionalIDSDKClaims checks that the fractional-id warning names an
// SDK as rejecting an id only when it does for that id: the TypeScript SDK
// reads an id that JSON.parse rounds to a safe integer (1e-400 to 0), as
// conformance/RESULTS.md measured (sent 0, received 1e-400: wrong match),
// and go-sdk truncates an id only when the result is its integer part. The
// unsafe-integer warning says the Python SDK rejects an id beyond int64 not
// spelled as an integer (its ids are strict integers).
func TestFractionalIDSDKClaims(t *testing.T) {
	const intro = "request id %s is not an integer: JSON-RPC 2.0 says ids SHOULD NOT have fractional parts and MCP allows only strings and integers; "
	const others = ", the Python, Rust (rmcp) and C# SDKs reject it, and sourcegraph/jsonrpc2 closes the connection"
	const all = ", the TypeScript, Python, Rust (rmcp) and C# SDKs reject it, and sourcegraph/jsonrpc2 closes the connection"
	for _, c := range []struct{ id, want string }{
		{"1e-400", "go-sdk and the TypeScript SDK read it as 0 (float64, through which both read it, rounds it to that integer), which can match a request with that id" + others},
		{"-1e-400", "go-sdk and the TypeScript SDK read it as 0 (float64, through which both read it, rounds it to that integer), which can match a request with that id" + others},
		{"2.0000000000000001", "go-sdk and the TypeScript SDK read it as 2 (float64, through which both read it, rounds it to that integer), which can match a request with that id" + others},
		{"0.99999999999999999", "go-sdk and the TypeScript SDK read it as 1 (float64, through which both read it, rounds it to that integer), which can match a request with that id" + others},
		{"-0.99999999999999999", "go-sdk and the TypeScript SDK read it as -1 (float64, through which both read it, rounds it to that integer), which can match a request with that id" + others},
		{"9007199254740991.4", "go-sdk and the TypeScript SDK read it as 9007199254740991 (float64, through which both read it, rounds it to that integer), which can match a request with that id" + others},
		// Beyond 2^53-1 the TypeScript SDK's schema refuses the double.
		{"9007199254740992.5", "go-sdk truncates it to 9007199254740992, which can match a request with that id" + all},
		{"9007199254740993.5", "go-sdk reads it as 9007199254740994 (float64 rounds it to that integer), which can match a request with that id" + all},
		{"1.5", "go-sdk truncates it to 1, which can match a request with that id" + all},
		{"-2.75", "go-sdk truncates it to -2, which can match a request with that id" + all},
		{"1.0000000000000002", "go-sdk truncates it to 1, which can match a request with that id" + all},
		{"12345678901234567890.5", "go-sdk's conversion to int64 overflows" + all},
	} {
		capture := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call"}`+"\n", c.id)
		_, out, _ := runCmd(t, strings.NewReader(capture), "check", "-")
		want := "<stdin>:1: warning: " + fmt.Sprintf(intro, c.id) + c.want + "\n"
		if first, _, _ := strings.Cut(out, "\n"); first+"\n" != want {
			t.Errorf("check of id %s says\n%s\nwant first\n%s", c.id, out, want)
		}
	}

	// The warning agrees with the unmatched-response finding about what
	// JSON.parse does with the id (the two faulty outputs: 1e-400 against
	// request 0, 2.0000000000000001 against request 2).
	for _, c := range []struct{ sent, got string }{{"0", "1e-400"}, {"2", "2.0000000000000001"}} {
		capture := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"a"}`+"\n"+`{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", c.sent, c.got)
		_, out, _ := runCmd(t, strings.NewReader(capture), "check", "-")
		unmatched := fmt.Sprintf("<stdin>:2: error: response id %s matches no pending request; JavaScript JSON.parse reads it as %s and would deliver it to request %s (line 1, a), whose id is different\n", c.got, c.sent, c.sent)
		warning := fmt.Sprintf("<stdin>:2: warning: response id %s is not an integer: JSON-RPC 2.0 says ids SHOULD NOT have fractional parts and MCP allows only strings and integers; "+
			"go-sdk and the TypeScript SDK read it as %s (float64, through which both read it, rounds it to that integer), which can match a request with that id"+others+"\n", c.got, c.sent)
		if !strings.Contains(out, unmatched) || !strings.Contains(out, warning) || strings.Contains(out, "the TypeScript, Python") {
			t.Errorf("check of response %s to request %s says\n%s\nwant\n%s%s", c.got, c.sent, out, unmatched, warning)
		}
	}

	// Beyond int64: the Python SDK keeps an integer spelling exactly and
	// rejects any other (a float to its JSON parser).
	for _, c := range []struct{ id, want string }{
		{"1e20", "request id 1e20 is beyond int64 (above 2^63-1): go-sdk's conversion to int64 overflows, and rmcp, the C# SDK and the Python SDK reject it (Python reads this spelling as a float); float64 holds it exactly; the TypeScript SDK rejects ids beyond 2^53-1 (its schema accepts only safe integers)"},
		{"100000000000000000000", "request id 100000000000000000000 is beyond int64 (above 2^63-1): go-sdk's conversion to int64 overflows, rmcp and the C# SDK reject it, and the Python SDK keeps it exactly; float64 holds it exactly; the TypeScript SDK rejects ids beyond 2^53-1 (its schema accepts only safe integers)"},
	} {
		capture := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call"}`+"\n", c.id)
		_, out, _ := runCmd(t, strings.NewReader(capture), "check", "-")
		if want := "<stdin>:1: warning: " + c.want + "\n"; !strings.HasPrefix(out, want) {
			t.Errorf("check of id %s says\n%s\nwant first\n%s", c.id, out, want)
		}
	}
}

// TestHARFaultOffsetsAndLostRequests checks findings about faults in a HAR:
// an error inside a literal or number where the entries array
// should be names the byte at fault (it named the literal's first byte,
// "at byte offset"); with a byte order mark, "more data follows" counts
// the mark's three bytes; and a response on a GET stream whose request may
// be in the part of a HAR cut short says so, as an unanswered request
// does.
func TestHARFaultOffsetsAndLostRequests(t *testing.T) {
	for _, c := range []struct{ har, want string }{
		{`{"log":{"entries":n[{"x":1}]}}`, "invalid character '[' in literal null (expecting 'u') at byte offset 19"},
		{`{"log":{"entries":tx}}`, "invalid character 'x' in literal true (expecting 'r') at byte offset 19"},
		{`{"log":{"entries":-x}}`, "invalid character 'x' in numeric literal at byte offset 19"},
		{`{"log":{"entries":1.x}}`, "invalid character 'x' after decimal point in numeric literal at byte offset 20"},
		{`{"log":{"entries": 1.x}}`, "invalid character 'x' after decimal point in numeric literal at byte offset 21"},
		{`{"log":{"entries": "a\qb"}}`, "invalid character 'q' in string escape code at byte offset 22"},
		{"\xef\xbb\xbf" + `{"log":{"entries":[]}}x`, "more data follows the HAR object (near byte 25)"},
		{`{"log":{"entries":[]}}x`, "more data follows the HAR object (near byte 22)"},
	} {
		_, out, _ := runCmd(t, strings.NewReader(c.har), "check", "-")
		if !strings.Contains(out, c.want) {
			t.Errorf("check of %q says\n%s\nwant it to say %q", c.har, out, c.want)
		}
	}

	get := harEntryJSON(t, "GET", "", "text/event-stream", "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n")
	post := harEntryJSON(t, "POST", `{"jsonrpc":"2.0","id":1,"method":"a"}`, "application/json", `{"jsonrpc":"2.0","id":1,"result":{}}`)
	full := `{"log":{"version":"1.2","entries":[` + get + `,` + post + `]}}`
	cut := full[:strings.Index(full, `"POST"`)]
	_, out, _ := runCmd(t, strings.NewReader(cut), "check", "-")
	want := fmt.Sprintf("<stdin>:entry 1: error: response id 1 matches no pending request in the capture: the HAR file, which may hold it after entry 1, is not valid from there on (it is cut short inside entry 2: the input ends at byte offset %d)\n", len(cut))
	if !strings.Contains(out, want) {
		t.Errorf("check of a HAR cut inside the POST whose request a GET stream answers says\n%s\nwant\n%s", out, want)
	}
}

// harEntryJSON returns a HAR entry, as JSON, of an exchange with url
// http://127.0.0.1/mcp, the request body reqBody (none if empty) and a 200
// response of type ctype with body resp.
func harEntryJSON(t *testing.T, method, reqBody, ctype, resp string) string {
	t.Helper()
	e := map[string]any{
		"request":  map[string]any{"method": method, "url": "http://127.0.0.1/mcp", "headers": []any{}},
		"response": map[string]any{"status": 200, "headers": []any{}, "content": map[string]any{"mimeType": ctype, "text": resp}},
	}
	if reqBody != "" {
		e["request"].(map[string]any)["postData"] = map[string]any{"mimeType": "application/json", "text": reqBody}
	}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestIDBeyondFloat64 checks that the warnings about a numeric id beyond
// float64's range (1e400) say go-sdk refuses the message, as
// jsonrpc.DecodeMessage does (encoding/json will not read such a number
// into its float64 id), rather than that its conversion to int64
// overflows, which stays true of ids beyond int64 that float64 holds.
func TestIDBeyondFloat64(t *testing.T) {
	long := "1" + strings.Repeat("0", 310) + ".5"
	for _, c := range []struct {
		id     string
		refuse bool
	}{
		{"1e400", true}, {"-1e400", true}, {"1.8e308", true}, {long, true},
		{"1e308", false}, {"1e19", false}, {"12345678901234567890.5", false},
	} {
		capture := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"a"}`+"\n", c.id)
		_, out, _ := runCmd(t, strings.NewReader(capture), "check", "-")
		refuses := strings.Contains(out, "go-sdk refuses the message (it reads ids as float64, which cannot hold this one), which ends its connection's read loop")
		overflows := strings.Contains(out, "go-sdk's conversion to int64 overflows")
		if refuses != c.refuse || overflows == c.refuse {
			t.Errorf("check of id %.40s says\n%.600s\nwant go-sdk refusing it %v, overflowing %v", c.id, out, c.refuse, !c.refuse)
		}
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
