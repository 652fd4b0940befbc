package check

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hostLine returns a line of Claude Desktop's log of server name at level
// info: "[info] [NAME]" as mcp.log writes it (levelFirst), else "[NAME]
// [info]" as mcp-server-NAME.log does.
func hostLine(levelFirst bool, sec int, name, text string) string {
	fields := "[" + name + "] [info]"
	if levelFirst {
		fields = "[info] [" + name + "]"
	}
	return fmt.Sprintf("2025-07-30T21:16:%02d.000Z %s %s { metadata: undefined }\n", sec, fields, text)
}

// hostSession returns the lines of one clean run of server name: initialize
// (id 0), tools/list (1), and a tools/call (2) that the client cancels and
// that is never answered, then the end of the run if closed.
func hostSession(levelFirst bool, name string, closed bool) []string {
	l := func(text string) string { return hostLine(levelFirst, 0, name, text) }
	lines := []string{
		l("Initializing server..."),
		l(`Message from client: {"method":"initialize","params":{},"jsonrpc":"2.0","id":0}`),
		l(`Message from server: {"jsonrpc":"2.0","id":0,"result":{}}`),
		l(`Message from client: {"method":"notifications/initialized","jsonrpc":"2.0"}`),
		l(`Message from client: {"method":"tools/list","params":{},"jsonrpc":"2.0","id":1}`),
		l(`Message from server: {"jsonrpc":"2.0","id":1,"result":{"tools":[]}}`),
		l(`Message from client: {"method":"tools/call","params":{"name":"x"},"jsonrpc":"2.0","id":2}`),
		l(`Message from client: {"method":"notifications/cancelled","params":{"requestId":2},"jsonrpc":"2.0"}`),
	}
	if closed {
		lines = append(lines, l("Server transport closed"))
	}
	return lines
}

// interleave takes one line of each list in turn.
func interleave(lists ...[]string) string {
	var b strings.Builder
	for i := 0; ; i++ {
		more := false
		for _, l := range lists {
			if i < len(l) {
				b.WriteString(l[i])
				more = true
			}
		}
		if !more {
			return b.String()
		}
	}
}

// In an MCP host's log, each server's lines are a session of their own:
// the logs of servers whose ids all start at 0, interleaved as in mcp.log
// or tail -f, or joined with cat, in either order of the bracketed fields,
// are clean when each server's log is.
func TestHostLogServersClean(t *testing.T) {
	for _, c := range []struct {
		name string
		log  string
	}{
		{"mcp.log, [info] [NAME]", interleave(hostSession(true, "filesystem", false), hostSession(true, "memory", false))},
		{"tail -f, [NAME] [info]", interleave(hostSession(false, "filesystem", false), hostSession(false, "memory", false))},
		{"both orders", interleave(hostSession(true, "filesystem", false), hostSession(false, "memory", false))},
		{"cat, runs open", strings.Join(hostSession(false, "filesystem", false), "") + strings.Join(hostSession(false, "memory", false), "")},
		{"cat, runs closed", strings.Join(hostSession(false, "filesystem", true), "") + strings.Join(hostSession(false, "memory", true), "")},
		{"three servers", interleave(hostSession(true, "a", true), hostSession(false, "b", false), hostSession(true, "c c", true))},
		// Servers named like levels, beside one that is not.
		{"server info", interleave(hostSession(true, "info", false), hostSession(true, "filesystem", false))},
		{"server debug", interleave(hostSession(false, "debug", false), hostSession(false, "filesystem", false))},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := runCmd(t, strings.NewReader(c.log), "check", "-")
			// Each session: 3 requests, 2 responses, 2 notifications.
			n := strings.Count(c.log, "Initializing server")
			read := fmt.Sprintf("checked 1 file: %d messages (%d requests, %d responses, %d notifications); ", 7*n, 3*n, 2*n, 2*n)
			if code != 0 || errOut != "" || !strings.HasPrefix(out, read) || !strings.HasSuffix(out, "; no findings\n") || strings.Count(out, "\n") != 1 {
				t.Errorf("check = %d, %q, stderr %q; want 0, %q... and no findings for:\n%s", code, out, errOut, read, c.log)
			}
		})
	}
}

// Which bracketed field names the server, line by line (see logServer).
func TestHostLogServerNames(t *testing.T) {
	for _, c := range []struct {
		name   string
		fields [][2]string // the fields of each line
		want   []string    // the server of each line
	}{
		{"level first", [][2]string{{"info", "fs"}, {"error", "fs"}, {"warn", "fs"}}, []string{"fs", "fs", "fs"}},
		{"name first", [][2]string{{"fs", "info"}, {"fs", "error"}, {"fs", "debug"}}, []string{"fs", "fs", "fs"}},
		{"both orders", [][2]string{{"info", "a"}, {"b", "info"}, {"a", "error"}, {"warning", "b"}}, []string{"a", "b", "a", "b"}},
		// A server named info: "[info] [info]" names it, and it is the
		// name already seen on a line of another level.
		{"info, level first", [][2]string{{"info", "info"}, {"error", "info"}, {"debug", "info"}}, []string{"info", "info", "info"}},
		{"info, name first", [][2]string{{"info", "info"}, {"info", "error"}}, []string{"info", "info"}},
		// A server named debug (or error): at level info, the field that is
		// not "info".
		{"debug, level first", [][2]string{{"info", "debug"}, {"error", "debug"}}, []string{"debug", "debug"}},
		{"debug, name first", [][2]string{{"debug", "info"}, {"debug", "warn"}}, []string{"debug", "debug"}},
		{"error", [][2]string{{"error", "info"}, {"error", "error"}, {"error", "warn"}}, []string{"error", "error", "error"}},
		{"debug after a line of the other order", [][2]string{{"info", "fs"}, {"debug", "info"}}, []string{"fs", "debug"}}, // cat mcp.log mcp-server-debug.log
		{"debug beside fs", [][2]string{{"fs", "info"}, {"debug", "info"}, {"debug", "error"}, {"fs", "error"}}, []string{"fs", "debug", "debug", "fs"}},
		// A level of another name: the server seen before, or the order of
		// the latest line a level word decided, or the first field.
		{"notice, seen", [][2]string{{"fs", "info"}, {"notice", "fs"}}, []string{"fs", "fs"}},
		{"notice, level first", [][2]string{{"info", "fs"}, {"notice", "git"}}, []string{"fs", "git"}},
		{"notice, name first", [][2]string{{"fs", "info"}, {"git", "notice"}}, []string{"fs", "git"}},
		{"notice, first line", [][2]string{{"git", "notice"}}, []string{"git"}},
		{"levels in capitals", [][2]string{{"INFO", "fs"}, {"fs", "Error"}}, []string{"fs", "fs"}},
		{"a server named Info", [][2]string{{"Info", "info"}, {"Info", "error"}}, []string{"Info", "Info"}},
		{"empty name", [][2]string{{"", "info"}, {"info", ""}}, []string{"", ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newCapture(&checker{w: bufio.NewWriter(io.Discard), otherEvents: map[string]int{}}, "x")
			s.log = logHost
			var got []string
			for i, f := range c.fields {
				name := s.logServer([]byte(f[0]), []byte(f[1]))
				got = append(got, string(name))
				s.logUse(name, i+1)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("servers of lines %q (-want +got):\n%s", c.fields, diff)
			}
		})
	}
}

// Findings about requests and answers in a log of several servers say
// whose lines they are about (the server member in -json); those of a log
// of one server are as they were. Ids are matched within a server's lines
// only, so a response of one server is unmatched even when another server
// has a request pending with its id.
func TestHostLogServerFindings(t *testing.T) {
	l := hostLine
	fs := []string{
		l(true, 1, "fs", `Message from client: {"method":"initialize","params":{},"jsonrpc":"2.0","id":0}`),
		l(true, 2, "fs", `Message from client: {"method":"tools/list","params":{},"jsonrpc":"2.0","id":0}`),
		l(true, 3, "fs", `Message from server: {"jsonrpc":"2.0","id":0,"result":{}}`),
		l(true, 4, "fs", `Message from server: {"jsonrpc":"2.0","id":7,"result":{}}`),
		l(true, 5, "fs", `Message from server: {"jsonrpc":"2.0","id":0,"result":{}}`),
		l(true, 6, "fs", `Message from server: {"jsonrpc":"2.0","id":0,"result":{}}`),
		l(true, 7, "fs", `Message from server: {"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"Method not found"}}`),
	}
	git := []string{
		l(true, 1, "git", `Message from client: {"method":"tools/call","params":{},"jsonrpc":"2.0","id":7}`),
	}
	single := strings.Join(fs, "")
	_, out, _ := runCmd(t, strings.NewReader(single), "check", "-")
	want := `<stdin>:2: error: request id 0 (tools/list) sent while request 0 (line 1, initialize) is still pending: their responses cannot be told apart
<stdin>:4: error: response id 7 matches no pending request; the log starts within a run of the server (its lines from line 1 come before any start of it), so the request it answers may be before the log's first line
<stdin>:6: error: response id 0 is a second answer: request 0 (line 2, tools/list) was already answered at line 5
<stdin>:7: error: response with a null id (error -32601: Method not found): only a parse error (-32700) or an invalid request (-32600) excuses a null id, so error -32601 shows the peer read the request and dropped its id
`
	if diff := cmp.Diff(want, out[:strings.LastIndex(out[:len(out)-1], "\n")+1]); diff != "" {
		t.Errorf("one server (-want +got):\n%s", diff)
	}

	both := interleave(fs, git) // git's request is line 2
	_, out, _ = runCmd(t, strings.NewReader(both), "check", "-")
	want = `<stdin>:3: error: server [fs]: request id 0 (tools/list) sent while request 0 (line 1, initialize) is still pending: their responses cannot be told apart
<stdin>:5: error: server [fs]: response id 7 matches no pending request; the log starts within a run of the server (its lines from line 1 come before any start of it), so the request it answers may be before the log's first line
<stdin>:7: error: server [fs]: response id 0 is a second answer: request 0 (line 3, tools/list) was already answered at line 6
<stdin>:8: error: server [fs]: response with a null id (error -32601: Method not found): only a parse error (-32700) or an invalid request (-32600) excuses a null id, so error -32601 shows the peer read the request and dropped its id
<stdin>:2: error: server [git]: request 7 (tools/call) was never answered
checked 1 file: 8 messages (3 requests, 5 responses, 0 notifications); 5 errors, 0 warnings. Breaks: 1 request reused an id in flight, whose answers no client can tell apart. Fix: rpcid proxy -remap between the client and the hops that lose or change the ids gives each request a small integer id of its own and the answer the client's id.
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("two servers (-want +got):\n%s", diff)
	}
	_, jsonOut, _ := runCmd(t, strings.NewReader(both), "check", "-json", "-")
	var servers []string
	for _, f := range decodeFindings(t, jsonOut) {
		servers = append(servers, f.Server)
	}
	if diff := cmp.Diff([]string{"fs", "fs", "fs", "fs", "git"}, servers); diff != "" {
		t.Errorf("-json server members (-want +got):\n%s", diff)
	}
}

// The runs of each server are its own: a server that ends and starts again
// has its requests reported and forgotten then, not another server's
// pending ones, and two runs of one server at once are said to be
// indistinguishable in findings about that server only.
func TestHostLogRunsPerServer(t *testing.T) {
	l := hostLine
	log := strings.Join([]string{
		l(false, 1, "git", "Initializing server..."),
		l(false, 1, "git", `Message from client: {"method":"tools/call","params":{},"jsonrpc":"2.0","id":0}`), // 2
		l(false, 2, "fs", "Initializing server..."),
		l(false, 2, "fs", `Message from client: {"method":"tools/call","params":{},"jsonrpc":"2.0","id":0}`), // 4
		l(false, 3, "fs", "Server transport closed"),
		l(false, 4, "fs", "Initializing server..."),                                                          // fs's run before is reported here
		l(false, 4, "fs", `Message from client: {"method":"initialize","params":{},"jsonrpc":"2.0","id":0}`), // 7
		l(false, 5, "fs", `Message from server: {"jsonrpc":"2.0","id":0,"result":{}}`),
		l(false, 6, "git", `Message from server: {"jsonrpc":"2.0","id":0,"result":{}}`), // answers line 2
		l(false, 7, "web", "Initializing server..."),
		l(false, 7, "web", "Initializing server..."),                                                          // two runs of web at once
		l(false, 7, "web", `Message from client: {"method":"tools/call","params":{},"jsonrpc":"2.0","id":5}`), // 12
		l(false, 8, "git", `Message from client: {"method":"tools/call","params":{},"jsonrpc":"2.0","id":5}`), // 13
	}, "")
	_, out, _ := runCmd(t, strings.NewReader(log), "check", "-")
	overlap := "; the log shows a run of the server starting at line 11 while the one from line 10 had not ended, and does not say which run each message belongs to"
	want := `<stdin>:4: error: server [fs]: request 0 (tools/call) was never answered
<stdin>:12: error: server [web]: request 5 (tools/call) was never answered` + overlap + `
<stdin>:13: error: server [git]: request 5 (tools/call) was never answered
checked 1 file: 7 messages (5 requests, 2 responses, 0 notifications); 6 log lines without a message not examined; 3 errors, 0 warnings
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// tail -f of several logs writes a header before each file's lines
// ("==> mcp-server-NAME.log <=="): the line after the first one says
// whether the capture is an MCP host's log, whose headers are lines without
// a message; in any other capture they are read as before, in their place.
func TestHostLogTailHeaders(t *testing.T) {
	fs, mem := hostSession(false, "filesystem", false), hostSession(false, "memory", false)
	header := func(name string) string { return "==> mcp-server-" + name + ".log <==\n" }
	log := header("filesystem") + strings.Join(fs[:3], "") + "\n" + header("memory") + strings.Join(mem[:5], "") +
		"\n" + header("filesystem") + strings.Join(fs[3:], "") + "\n" + header("memory") + strings.Join(mem[5:], "")
	code, out, _ := runCmd(t, strings.NewReader(log), "check", "-")
	want := "checked 1 file: 14 messages (6 requests, 4 responses, 4 notifications); 6 log lines without a message not examined; no findings\n"
	if code != 0 || out != want {
		t.Errorf("tail -f of two logs = %d, %q; want 0, %q", code, out, want)
	}

	// tail -f mcp*.log follows mcp.log, which holds the lines of all
	// servers, beside the per-server logs: each file's servers are
	// sessions of their own, so the same messages twice are no duplicates.
	all := strings.Split(interleave(hostSession(true, "filesystem", false), hostSession(true, "memory", false)), "\n")
	for i := range all {
		all[i] += "\n"
	}
	log = header("filesystem") + strings.Join(fs[:4], "") + "\n==> mcp.log <==\n" + strings.Join(all[:10], "") +
		"\n" + header("filesystem") + strings.Join(fs[4:], "") + "\n==> mcp.log <==\n" + strings.Join(all[10:len(all)-1], "")
	code, out, _ = runCmd(t, strings.NewReader(log), "check", "-")
	want = "checked 1 file: 21 messages (9 requests, 6 responses, 6 notifications); 7 log lines without a message not examined; no findings\n"
	if code != 0 || out != want {
		t.Errorf("tail -f of mcp.log and a per-server log = %d, %q; want 0, %q", code, out, want)
	}

	jsonl := "==> a.jsonl <==\n" + `{"jsonrpc":"2.0","id":1,"method":"x"}` + "\n\n==> b.jsonl <==\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"
	_, out, _ = runCmd(t, strings.NewReader(jsonl), "check", "-")
	want = `<stdin>:1: error: not JSON at column 1: invalid character at start of value ('=')
<stdin>:4: error: not JSON at column 1: invalid character at start of value ('=')
checked 1 file: 2 messages (1 request, 1 response, 0 notifications); 2 errors, 0 warnings
`
	if out != want {
		t.Errorf("JSON Lines after a tail header:\n%s\nwant:\n%s", out, want)
	}
	_, out, _ = runCmd(t, strings.NewReader(header("a")+header("b")), "check", "-")
	want = `<stdin>:1: error: not JSON at column 1: invalid character at start of value ('=')
<stdin>:2: error: not JSON at column 1: invalid character at start of value ('=')
<stdin>: error: nothing to check: none of its 2 non-blank lines is a JSON-RPC 2.0 message
checked 1 file: 0 messages (0 requests, 0 responses, 0 notifications); 3 errors, 0 warnings
`
	if out != want {
		t.Errorf("only tail headers:\n%s\nwant:\n%s", out, want)
	}

	// A line too long to examine after a header: the capture is JSON
	// Lines, its findings in the order of its lines.
	defer func(n int) { maxLine = n }(maxLine)
	maxLine = 1 << 20
	long := `{"jsonrpc":"2.0","method":"` + strings.Repeat("b", 2<<20) + `"}`
	_, out, _ = runCmd(t, strings.NewReader(header("a")+long+"\n"+header("b")), "check", "-")
	want = fmt.Sprintf(`<stdin>:1: error: not JSON at column 1: invalid character at start of value ('=')
<stdin>:2: error: the line is %d bytes long, more than check reads as one message (1 MiB), and is not examined
<stdin>:3: error: not JSON at column 1: invalid character at start of value ('=')
<stdin>: error: nothing to check: none of its 3 non-blank lines is a JSON-RPC 2.0 message
checked 1 file: 0 messages (0 requests, 0 responses, 0 notifications); 4 errors, 0 warnings
`, len(long))
	if out != want {
		t.Errorf("a long line after a tail header:\n%s\nwant:\n%s", out, want)
	}
}

// The servers of a host log are parts like a HAR's sessions: beyond
// maxSessions, idle ones are forgotten, and one with a request pending is kept.
func TestHostLogServersBounded(t *testing.T) {
	c := &checker{w: bufio.NewWriter(io.Discard), otherEvents: map[string]int{}}
	s := newCapture(c, "x")
	n := 0
	add := func(name, text string) {
		n++
		s.line(n, []byte(hostLine(true, 0, name, text)))
	}
	add("pending", `Message from client: {"method":"tools/call","params":{},"jsonrpc":"2.0","id":0}`)
	for i := 0; i < 3*maxSessions; i++ {
		name := fmt.Sprintf("s%d", i)
		add(name, `Message from client: {"method":"ping","jsonrpc":"2.0","id":0}`)
		add(name, `Message from server: {"jsonrpc":"2.0","id":0,"result":{}}`)
	}
	add("pending", `Message from server: {"jsonrpc":"2.0","id":0,"result":{}}`)
	if len(s.sessions) > maxSessions+1 || len(s.sessionIdx) != len(s.sessions) || c.errors+c.warnings != 0 {
		t.Errorf("after %d servers: %d parts, %d indexed, %d errors, %d warnings; want at most %d parts and no findings",
			3*maxSessions+1, len(s.sessions), len(s.sessionIdx), c.errors, c.warnings, maxSessions+1)
	}
}

// A partial log (tail -n, as MCP's debugging guide has users follow
// mcp*.log; an excerpt pasted in a bug report; a rotated log) starts within
// a run of a server: its lines before the server's first "Initializing
// server..." are a run of their own, which an end line (any the host
// writes) then a start line separate from the next run, as a whole log's
// runs are (sjzar/chatlog#166: initialize 0 timed out and cancelled, the
// server restarted, initialize 0 again).
func TestHostLogPartialRun(t *testing.T) {
	l := func(sec int, name, text string) string { return hostLine(false, sec, name, text) }
	init0 := `Message from client: {"method":"initialize","params":{},"jsonrpc":"2.0","id":0}`
	call1 := `Message from client: {"method":"tools/call","params":{},"jsonrpc":"2.0","id":1}`
	answer0 := `Message from server: {"jsonrpc":"2.0","id":0,"result":{}}`
	restart := func(end string) string {
		return strings.Join([]string{
			l(1, "fs", "Server started and connected successfully"),
			l(1, "fs", init0),
			l(2, "fs", call1), // 3: never answered
			l(3, "fs", end),
			l(4, "fs", "Initializing server..."),
			l(4, "fs", init0), // 6
			l(5, "fs", answer0),
			l(5, "fs", call1), // 8
			l(6, "fs", `Message from server: {"jsonrpc":"2.0","id":1,"result":{}}`),
		}, "")
	}
	ended := `<stdin>:2: error: request 0 (initialize) was never answered
<stdin>:3: error: request 1 (tools/call) was never answered
checked 1 file: 6 messages (4 requests, 2 responses, 0 notifications); 3 log lines without a message not examined; 2 errors, 0 warnings
`
	overlap := "; the log shows a run of the server starting at line 5 while the run the log starts in had not ended, and does not say which run each message belongs to"
	for _, c := range []struct {
		name, log, want string
	}{
		{"transport closed", restart("Server transport closed"), ended},
		{"client transport closed", restart("Client transport closed"), ended},
		{"shutting down", restart("Shutting down server..."), ended},
		{"disconnected", restart("Server disconnected. For troubleshooting guidance, please visit our [debugging documentation](https://modelcontextprotocol.io/docs/tools/debugging)"), ended},
		// Without an end line the runs may be open at once, as in a
		// whole log.
		{"not ended", restart("Server started and connected successfully"), `<stdin>:6: error: request id 0 (initialize) sent while request 0 (line 2, initialize) is still pending: their responses cannot be told apart` + overlap + `
<stdin>:8: error: request id 1 (tools/call) sent while request 1 (line 3, tools/call) is still pending: their responses cannot be told apart` + overlap + `
<stdin>:6: error: request 0 (initialize) was never answered, or request 0 (line 2, initialize) was: both were pending with the same id, and the one response with it (line 7) answers either, which the ids alone cannot tell` + overlap + `
<stdin>:8: error: request 1 (tools/call) was never answered, or request 1 (line 3, tools/call) was: both were pending with the same id, and the one response with it (line 9) answers either, which the ids alone cannot tell` + overlap + `
checked 1 file: 6 messages (4 requests, 2 responses, 0 notifications); 3 log lines without a message not examined; 4 errors, 0 warnings
`},
		// A message is no end line, whatever its text.
		{"message saying transport closed", restart(`Message from server: {"jsonrpc":"2.0","method":"notifications/message","params":{"data":"Server transport closed"}}`), `<stdin>:6: error: request id 0 (initialize) sent while request 0 (line 2, initialize) is still pending: their responses cannot be told apart` + overlap + `
<stdin>:8: error: request id 1 (tools/call) sent while request 1 (line 3, tools/call) is still pending: their responses cannot be told apart` + overlap + `
<stdin>:6: error: request 0 (initialize) was never answered, or request 0 (line 2, initialize) was: both were pending with the same id, and the one response with it (line 7) answers either, which the ids alone cannot tell` + overlap + `
<stdin>:8: error: request 1 (tools/call) was never answered, or request 1 (line 3, tools/call) was: both were pending with the same id, and the one response with it (line 9) answers either, which the ids alone cannot tell` + overlap + `
checked 1 file: 7 messages (4 requests, 2 responses, 1 notification); 2 log lines without a message not examined; 4 errors, 0 warnings
`},
		// Lines of the server before its first start that hold no
		// message: nothing to keep apart from the run that starts.
		{"no message before the start", l(1, "fs", "Server transport closed") + l(2, "fs", "Initializing server...") + l(3, "fs", init0) + l(4, "fs", answer0),
			"checked 1 file: 2 messages (1 request, 1 response, 0 notifications); 2 log lines without a message not examined; no findings\n"},
		// Another server's run the log starts in is its own.
		{"two servers", interleave(strings.SplitAfter(restart("Server transport closed"), "\n"),
			[]string{l(1, "git", init0), l(7, "git", answer0)}), `<stdin>:3: error: server [fs]: request 0 (initialize) was never answered
<stdin>:5: error: server [fs]: request 1 (tools/call) was never answered
checked 1 file: 8 messages (5 requests, 3 responses, 0 notifications); 3 log lines without a message not examined; 2 errors, 0 warnings
`},
	} {
		_, out, _ := runCmd(t, strings.NewReader(c.log), "check", "-")
		if diff := cmp.Diff(c.want, out); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}

	// A response whose request the excerpt cut off: the finding says the
	// log starts within a run; after a start line, it does not.
	for _, c := range []struct{ name, log, want string }{
		{"Claude Desktop", l(1, "fs", `Message from server: {"jsonrpc":"2.0","id":5,"result":{}}`) + l(2, "fs", "Server transport closed") +
			l(3, "fs", "Initializing server...") + l(4, "fs", `Message from server: {"jsonrpc":"2.0","id":5,"result":{}}`),
			`<stdin>:1: error: response id 5 matches no pending request; the log starts within a run of the server (its lines from line 1 come before any start of it), so the request it answers may be before the log's first line
<stdin>:4: error: response id 5 matches no pending request
checked 1 file: 2 messages (0 requests, 2 responses, 0 notifications); 2 log lines without a message not examined; 2 errors, 0 warnings
`},
		{"VS Code", "==> mcp.log <==\n" + vscodeLine(1, "debug", `[server -> editor] {"jsonrpc":"2.0","id":5,"result":{}}`) +
			vscodeLine(2, "info", "Starting server fs") + vscodeLine(3, "debug", `[server -> editor] {"jsonrpc":"2.0","id":5,"result":{}}`),
			`<stdin>:2: error: response id 5 matches no pending request; the log starts within a run of the server (its lines from line 2 come before any start of it), so the request it answers may be before the log's first line
<stdin>:4: error: response id 5 matches no pending request
checked 1 file: 2 messages (0 requests, 2 responses, 0 notifications); 2 log lines without a message not examined; 2 errors, 0 warnings
`},
	} {
		_, out, _ := runCmd(t, strings.NewReader(c.log), "check", "-")
		if diff := cmp.Diff(c.want, out); diff != "" {
			t.Errorf("%s, a response cut off from its request (-want +got):\n%s", c.name, diff)
		}
	}

	// A partial log may start with lines no host writes with a timestamp
	// (the server's standard error, JSON from its logger or not, a stack
	// trace): the first line that is a log's says what the capture is, and
	// those before it are lines without a message.
	stderr := "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)\n" +
		`{"level":"debug","msg":"Message from client: {\"id\":0}"}` + "\n[INFO] listening on stdio\n"
	for _, c := range []struct{ name, log, want string }{
		{"Claude Desktop", stderr + restart("Server transport closed"), `<stdin>:5: error: request 0 (initialize) was never answered
<stdin>:6: error: request 1 (tools/call) was never answered
checked 1 file: 6 messages (4 requests, 2 responses, 0 notifications); 6 log lines without a message not examined; 2 errors, 0 warnings
`},
		{"VS Code", stderr + vscodeLine(1, "debug", `[editor -> server] {"jsonrpc":"2.0","id":1,"method":"initialize"}`) +
			vscodeLine(2, "debug", `[server -> editor] {"jsonrpc":"2.0","id":"1","result":{}}`),
			`<stdin>:5: warning: response id "1" matches request 1 (line 4, initialize) only under the rule: the id's JSON type changed from number to string in transit; SDKs that compare type and value (go-sdk, mcp-go's stdio and SSE transports, C#) drop this response
checked 1 file: 2 messages (1 request, 1 response, 0 notifications); 3 log lines without a message not examined; 0 errors, 1 warning. Breaks: 1 response whose id changed type is dropped (or refused) by go-sdk v1.8.0, mcp-go (stdio, SSE) v1.2.1, sourcegraph/jsonrpc2 v0.2.3, creachadair/jrpc2 v1.3.6 (conformance/RESULTS.md, clause 5: 31, 31, 29 and 38 failed checks) and C#. Fix: rpcid proxy between the client and the hop that changes the ids restores each id to the bytes the client sent.
`},
		{"go-sdk", "read error: EOF\n" + `write: {"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\n" + `read: {"jsonrpc":"2.0","id":"1","result":{}}` + "\n",
			`<stdin>:3: warning: response id "1" matches request 1 (line 2, initialize) only under the rule: the id's JSON type changed from number to string in transit; SDKs that compare type and value (go-sdk, mcp-go's stdio and SSE transports, C#) drop this response
checked 1 file: 2 messages (1 request, 1 response, 0 notifications); 1 log line without a message not examined; 0 errors, 1 warning. Breaks: 1 response whose id changed type is dropped (or refused) by go-sdk v1.8.0, mcp-go (stdio, SSE) v1.2.1, sourcegraph/jsonrpc2 v0.2.3, creachadair/jrpc2 v1.3.6 (conformance/RESULTS.md, clause 5: 31, 31, 29 and 38 failed checks) and C#. Fix: rpcid proxy between the client and the hop that changes the ids restores each id to the bytes the client sent.
`},
		// A JSON Lines capture is read as before: a line that can be a
		// message decides at once.
		{"JSON Lines", "not json\n" + `{"jsonrpc":"2.0","id":1,"method":"a"}` + "\n" + l(1, "fs", init0),
			`<stdin>:1: error: not JSON at column 2: invalid literal
<stdin>:3: error: not JSON at column 5: invalid character after top-level value ('-')
<stdin>:2: error: request 1 (a) was never answered
checked 1 file: 1 message (1 request, 0 responses, 0 notifications); 3 errors, 0 warnings
`},
	} {
		_, out, _ := runCmd(t, strings.NewReader(c.log), "check", "-")
		if diff := cmp.Diff(c.want, out); diff != "" {
			t.Errorf("%s after lines without a timestamp (-want +got):\n%s", c.name, diff)
		}
	}

	// tail -n 20 -F ~/Library/Logs/Claude/mcp*.log: each file starts
	// within a run, after its header, and mcp.log repeats the per-server
	// log's lines; each file's run is reported when it restarts.
	lines := strings.SplitAfter(restart("Server transport closed"), "\n")
	lines = lines[:len(lines)-1]
	tail := "==> mcp.log <==\n" + strings.Join(lines[:4], "") + "\n==> mcp-server-fs.log <==\n" + strings.Join(lines, "") +
		"\n==> mcp.log <==\n" + strings.Join(lines[4:], "")
	_, out, _ := runCmd(t, strings.NewReader(tail), "check", "-")
	want := `<stdin>:9: error: request 0 (initialize) was never answered
<stdin>:10: error: request 1 (tools/call) was never answered
<stdin>:3: error: request 0 (initialize) was never answered
<stdin>:4: error: request 1 (tools/call) was never answered
checked 1 file: 12 messages (8 requests, 4 responses, 0 notifications); 9 log lines without a message not examined; 4 errors, 0 warnings
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("tail -F of mcp*.log (-want +got):\n%s", diff)
	}
}

// vscodeLine returns a line of VS Code's output log of an MCP server.
func vscodeLine(sec int, level, text string) string {
	return fmt.Sprintf("2026-07-24 02:03:%02d.089 [%s] %s\n", sec, level, text)
}

// VS Code's output log of an MCP server: the marker after the level says
// who sent the message ("[editor -> server]" the client, "[server ->
// editor]" the server; "[Client Says]" and "[Server Says]" in the first
// format), other lines hold none, and a start of the server after its
// messages starts a run of its own, as VS Code runs one connection to a
// server at a time.
func TestVSCodeLog(t *testing.T) {
	v := vscodeLine
	init1 := `[editor -> server] {"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	answer1 := `[server -> editor] {"jsonrpc":"2.0","id":1,"result":{}}`
	for _, c := range []struct {
		name, log, want string
	}{
		{"clean, with a server request", v(1, "info", "Starting server fs") + v(1, "info", "Connection state: Starting") +
			v(1, "info", "Starting server from LocalProcess extension host") + v(1, "info", "Connection state: Running") +
			v(2, "debug", init1) + v(2, "warning", "[server stderr] [editor -> server] not a message") + v(3, "debug", answer1) +
			v(4, "debug", `[server -> editor] {"jsonrpc":"2.0","id":1,"method":"roots/list"}`) +
			v(4, "debug", `[editor -> server] {"jsonrpc":"2.0","id":1,"result":{"roots":[]}}`) +
			v(5, "error", "Error: something\n") + "    at McpServer.start (file:///x.js:1:2)\n",
			"checked 1 file: 4 messages (2 requests, 2 responses, 0 notifications); 7 log lines without a message not examined; no findings\n"},
		{"the first format", v(1, "info", `[Client Says] {"jsonrpc":"2.0","id":4,"method":"tools/call","params":{}}`) +
			v(2, "info", `[Server Says] {"jsonrpc":"2.0","id":"4","result":{}}`),
			`<stdin>:2: warning: response id "4" matches request 4 (line 1, tools/call) only under the rule: the id's JSON type changed from number to string in transit; SDKs that compare type and value (go-sdk, mcp-go's stdio and SSE transports, C#) drop this response
checked 1 file: 2 messages (1 request, 1 response, 0 notifications); 0 errors, 1 warning. Breaks: 1 response whose id changed type is dropped (or refused) by go-sdk v1.8.0, mcp-go (stdio, SSE) v1.2.1, sourcegraph/jsonrpc2 v0.2.3, creachadair/jrpc2 v1.3.6 (conformance/RESULTS.md, clause 5: 31, 31, 29 and 38 failed checks) and C#. Fix: rpcid proxy between the client and the hop that changes the ids restores each id to the bytes the client sent.
`},
		// A restart whose end the log lacks (an excerpt; a connection
		// disposed of) is a new run all the same, unlike Claude
		// Desktop's, whose runs may be open at once.
		{"restart without an end", v(1, "debug", init1) + v(1, "debug", `[editor -> server] {"jsonrpc":"2.0","id":2,"method":"tools/list"}`) +
			v(2, "info", "Starting server fs") + v(2, "info", "Connection state: Starting") + v(3, "debug", init1) + v(3, "debug", answer1),
			`<stdin>:1: error: request 1 (initialize) was never answered
<stdin>:2: error: request 2 (tools/list) was never answered
checked 1 file: 4 messages (3 requests, 1 response, 0 notifications); 2 log lines without a message not examined; 2 errors, 0 warnings
`},
		{"restart after an error", v(1, "debug", init1) + v(2, "info", "Connection state: Error Process exited with code 1") +
			v(3, "info", "Connection state: Starting") + v(4, "debug", init1) + v(5, "debug", answer1),
			`<stdin>:1: error: request 1 (initialize) was never answered
checked 1 file: 3 messages (2 requests, 1 response, 0 notifications); 2 log lines without a message not examined; 1 error, 0 warnings
`},
		{"not JSON", v(1, "info", `[Server Says] Listening on stdio`) + v(2, "debug", "[editor -> server]   "),
			`<stdin>:1: error: not JSON at column 46: invalid character at start of value ('L')
<stdin>:2: error: empty message after "[editor -> server]"
<stdin>: error: nothing to check: it is a log in VS Code's format (timestamped lines), and none of its 2 lines with "[editor -> server]" or "[server -> editor]" ("[Client Says]" or "[Server Says]") holds a JSON-RPC 2.0 message that could be read
checked 1 file: 0 messages (0 requests, 0 responses, 0 notifications); 3 errors, 0 warnings
`},
		{"no messages at level info", v(1, "info", "Starting server fs") + v(1, "info", "Connection state: Running") + v(2, "info", "Discovered 3 tools"),
			`<stdin>: error: nothing to check: it is a log in VS Code's format (timestamped lines, as VS Code's MCP server output and Cursor's MCP log write them), and none of its 3 non-blank lines holds a message ("[editor -> server]" or "[server -> editor]", which VS Code writes at log level debug, info for a server in dev mode)
checked 1 file: 0 messages (0 requests, 0 responses, 0 notifications); 3 log lines without a message not examined; 1 error, 0 warnings
`},
		// Cursor's MCP log has VS Code's timestamps and levels, and no
		// message lines (as published in GLips/Figma-Context-MCP#77).
		{"Cursor", v(1, "info", "figma: Handling CreateClient action") + v(1, "info", "figma: Starting new stdio process with command: npx -y figma-mcp") +
			v(2, "error", "figma: Error in MCP: Client closed"),
			`<stdin>: error: nothing to check: it is a log in VS Code's format (timestamped lines, as VS Code's MCP server output and Cursor's MCP log write them), and none of its 3 non-blank lines holds a message ("[editor -> server]" or "[server -> editor]", which VS Code writes at log level debug, info for a server in dev mode)
checked 1 file: 0 messages (0 requests, 0 responses, 0 notifications); 3 log lines without a message not examined; 1 error, 0 warnings
`},
		// tail -f of two servers' logs: each file is a session.
		{"tail headers", "==> a.log <==\n" + v(1, "debug", init1) + "\n==> b.log <==\n" + v(1, "debug", init1) + v(2, "debug", answer1) +
			"\n==> a.log <==\n" + v(2, "debug", answer1),
			"checked 1 file: 4 messages (2 requests, 2 responses, 0 notifications); 3 log lines without a message not examined; no findings\n"},
	} {
		_, out, _ := runCmd(t, strings.NewReader(c.log), "check", "-")
		if diff := cmp.Diff(c.want, out); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}

// A log whose first run ends before it starts (a restart after an earlier
// run's last line, with timestamps out of order), so that the run in use
// when the log ends has a table of its own: its unanswered requests are
// reported from that table, in the order they were sent, with no panic.
func TestHostLogRestartBeforeFirstLine(t *testing.T) {
	code, out, errOut := runCmd(t, nil, "check", "testdata/hostlog-restart-before-first-line.log")
	want := "testdata/hostlog-restart-before-first-line.log:2: error: not JSON at column 56: invalid character at start of value ('}')\n" +
		"testdata/hostlog-restart-before-first-line.log:4: error: request 0 () was never answered\n" +
		"testdata/hostlog-restart-before-first-line.log:5: error: request 1 () was never answered\n"
	if code != 1 || errOut != "" || !strings.HasPrefix(out, want) {
		t.Errorf("check = %d, stderr %q, stdout\n%s\nwant it to start\n%s", code, errOut, out, want)
	}
}
