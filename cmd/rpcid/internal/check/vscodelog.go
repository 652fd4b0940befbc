package check

import (
	"bytes"
	"regexp"
)

// vscodeStamp matches the start of a line of VS Code's output log of an
// MCP server (the "MCP: NAME" channel of the Output view, and its file in
// VS Code's logs folder): a local time to the millisecond and the level in
// brackets, as VS Code's loggers write them ("2026-07-24 02:03:14.089
// [debug] ...").
var vscodeStamp = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \[(trace|debug|info|warning|error)\] `)

// vscodeMarkers are the words after the level on the lines of VS Code's
// output log of an MCP server that hold a message, with its sender:
// "[editor -> server] " and "[server -> editor] ", each followed by the
// message as JavaScript's JSON.stringify writes what VS Code sent or read
// (microsoft/vscode, mcpServerRequestHandler.ts; rsclarke/mcp-taskfile-server#134),
// and, in VS Code's early MCP support (March 2025), "[Client Says] " and
// "[Server Says] ", followed by the text sent and the line the server
// wrote (microsoft/vscode#244377).
var vscodeMarkers = []struct {
	text []byte
	dir  direction
}{
	{[]byte("[editor -> server] "), fromClient},
	{[]byte("[server -> editor] "), fromServer},
	{[]byte("[Client Says] "), fromClient},
	{[]byte("[Server Says] "), fromServer},
}

// vscodeLog is VS Code's output log of an MCP server.
type vscodeLog struct{ *capture }

// readLine handles one line of VS Code's output log of an MCP server: a
// timestamped line whose text starts with a direction marker (see
// vscodeMarkers) holds the message after it, to the end of the line; other
// lines (VS Code's own, the server's standard error as "[server stderr]",
// a stack trace's lines without a timestamp) hold none and are counted.
// The log is of one server: each file (after tail headers, each file
// named) is a session. A run starts at "Starting server" or "Connection
// state: Starting" and ends at "Stopping server" or "Connection state:
// Stopped" or "Error" (mcpServerConnection.ts); VS Code runs one
// connection to a server at a time (see logRun).
func (s vscodeLog) readLine(pos position, line []byte, start int) {
	m := vscodeStamp.FindIndex(line[start:])
	if m == nil {
		s.logHeader(line[start:])
		s.logOther++
		return
	}
	if s.p == nil || s.p.file != s.logFile {
		s.use(logSessionKey(s.logFile, nil), pos.line)
		s.p.file = s.logFile
	}
	if s.run.at == 0 && s.run.from == 0 {
		s.run.from = pos.line
	}
	from := start + m[1]
	text := line[from:]
	dir, n := fromUnknown, 0
	for _, k := range vscodeMarkers {
		// The line ends after the marker when the message is empty (its
		// trailing white space is gone).
		if w := k.text[:len(k.text)-1]; bytes.HasPrefix(text, w) && (len(text) == len(w) || text[len(w)] == ' ') {
			dir, n = k.dir, len(w)
			break
		}
	}
	if dir == fromUnknown {
		switch {
		case bytes.HasPrefix(text, []byte("Starting server")) || bytes.HasPrefix(text, []byte("Connection state: Starting")):
			s.logRun(pos, true)
		case bytes.HasPrefix(text, []byte("Stopping server")) || bytes.HasPrefix(text, []byte("Connection state: Stopped")) ||
			bytes.HasPrefix(text, []byte("Connection state: Error")):
			s.run.ended = true
		}
		s.logOther++
		return
	}
	s.logMarked++
	s.marked = true
	s.run.held = true
	begin := from + n
	for begin < len(line) && isJSONSpace(line[begin]) {
		begin++
	}
	if begin == len(line) {
		s.invalid(pos, "", "empty message after \""+string(text[:n])+"\"")
		return
	}
	s.payload(pos, "", dir, line[begin:], begin+1)
}
