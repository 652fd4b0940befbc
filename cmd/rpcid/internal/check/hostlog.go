package check

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"

	"github.com/rpcid/rpcid/internal/scan"
)

// logState is the state of the MCP host's log being read (see hostLog).
type logState struct {
	// held are the tail headers before the first other non-blank line
	// (see heldLine), read when it says what the capture is.
	held []heldLine
	// log: the capture is an MCP host's log (see lineFormat); logOther
	// counts its lines without a message.
	log      int
	logOther int
	// logMarked counts the lines of an MCP host's log that say they hold
	// a message.
	logMarked int
	// run is the run of the server in use (see mcpSession) that the lines
	// of an MCP host's log being read belong to.
	run logRunState
	// logNameFirst says where the server's name stood on the latest line
	// of an MCP host's log whose level word told it (see logServer): 1 in
	// the first bracketed field, 2 in the second, 0 before any such line.
	logNameFirst int
	// logFirst is the first server an MCP host's log named, and logMany
	// whether it has named another since: findings then say which server
	// they are about (see report).
	logFirst string
	logMany  bool
	// logFile is the file named by the latest tail header of an MCP host's
	// log ("==> mcp.log <=="), "" before any.
	logFile string
	// logSent is who sent the messages of a go-sdk log's "write: " lines.
	logSent direction
}

// logRunState is where an MCP host's log is in the runs of one server
// (each a new process on new pipes, whose client starts its ids anew).
type logRunState struct {
	// at is the line where the run started ("Initializing server..."),
	// or 0 for the run the log starts in: the lines of the server before
	// its first start line, which a partial log (tail -n, an excerpt, a
	// rotated log) begins with.
	at int
	// from is the first line of the run the log starts in (at 0), as long
	// as no start line came.
	from int
	// ended: the log said the run ended ("... transport closed").
	ended bool
	// held: a message was read in the run.
	held bool
	// overlap, once two runs were open at once, is the sentence findings
	// about requests and answers end with.
	overlap string
}

// logRun handles a line of an MCP host's log that starts a run of the
// server in use (a new process on new pipes). The lines of the server
// before its first such line are a run of their own, one that started
// before the log did: a log need not start at a run's start (tail -n, an
// excerpt, a rotated log). The requests of the run before, if it ended,
// are reported and forgotten, so that ids used again are no duplicates and
// answers are not taken across runs. A run that had not ended (runs at
// once, as when Claude Desktop starts a server twice) cannot be told apart
// from the new one: findings about requests and answers then say so. When
// the host runs one connection to a server at a time (once: VS Code), a
// start line ends the run before whatever the log said, unless that run
// holds no message yet: VS Code writes "Starting server NAME" and
// "Connection state: Starting" for one start. Other servers' runs are their
// own.
func (s *capture) logRun(pos position, once bool) {
	r := &s.run
	switch {
	case once && !r.held && r.at != 0:
		return // the same start
	case !r.held && (once || r.at == 0):
		// The log starts here for this server, or its lines before held
		// no message: nothing to keep apart.
	case r.ended || once:
		s.reportOpen([]*mcpSession{s.p})
		s.t = newTable(s.t.ring)
		s.initialized = false
	case r.overlap == "" && r.at == 0:
		r.overlap = fmt.Sprintf("the log shows a run of the server starting at %s while the run the log starts in had not ended, and does not say which run each message belongs to", pos)
	case r.overlap == "":
		r.overlap = fmt.Sprintf("the log shows a run of the server starting at %s while the one from %s had not ended, and does not say which run each message belongs to", pos, position{line: r.at})
	}
	r.at, r.ended, r.held = pos.line, false, false
}

// heldLine is a line of a capture whose reading waits for the kind of the
// capture to be known.
type heldLine struct {
	n     int
	line  []byte // without trailing white space
	start int    // its first non-blank byte
}

// maxHeld and maxHeldLen bound the lines held before the line that says
// what a capture is (see line): further ones are read as that line.
const (
	maxHeld    = 64
	maxHeldLen = 4096
)

// mayLeadLog reports whether a line, not blank and no log's line (see
// logKind), may start a part of a log without being a JSON Lines message:
// it does not start with a direction marker or a JSON object or array of
// objects, or it is an object without a "jsonrpc" member, such as a
// server's JSON logger writes to standard error. A lone "{" or "[" (JSON
// printed over several lines) is no such line.
func mayLeadLog(b []byte) bool {
	switch b[0] {
	case '>', '<':
		return false
	case '{':
		return len(b) > 1 && !bytes.Contains(b, []byte(`"jsonrpc"`))
	case '[':
		rest := bytes.TrimLeft(b[1:], " \t")
		return len(rest) > 0 && rest[0] != '{' && rest[0] != ']'
	}
	return true
}

// isTailHeader reports whether a line is the header tail writes before the
// lines of each file when given several ("==> mcp.log <==").
func isTailHeader(b []byte) bool {
	return len(b) >= len("==>  <==") && bytes.HasPrefix(b, []byte("==> ")) && bytes.HasSuffix(b, []byte(" <=="))
}

// logHeader notes the file whose lines follow when a line of an MCP host's
// log without a timestamp is a tail header: each file's servers are
// sessions of their own, as each FILE given to check is (tail -f mcp*.log
// follows mcp.log, which holds the lines of all servers, beside the
// per-server logs).
func (s *capture) logHeader(line []byte) {
	if len(line) <= maxHeldLen && isTailHeader(line) {
		s.logFile = string(line[len("==> ") : len(line)-len(" <==")])
	}
}

// replayHeld reads the lines held before the kind of the capture was
// decided: in an MCP host's log, tail's headers are lines without a
// message; in any other capture they are read as any line is.
func (s *capture) replayHeld() {
	held := s.held
	s.held = nil
	for _, h := range held {
		if s.log == logHost || s.log == logVSCode {
			s.logHeader(h.line[h.start:])
			s.nonBlank++
			s.logOther++
			continue
		}
		s.lineOf(position{line: h.n}, h.line, h.start)
	}
}

// logStamp matches the start of a line of an MCP host's log: an RFC 3339
// timestamp, then two bracketed fields, the level and the server's name in
// either order, as Claude Desktop writes its mcp-server-NAME.log files and
// mcp.log, which interleaves the lines of all servers
// ("2025-07-30T21:16:29.756Z [info] [name] ...", "2025-10-03T07:51:43.656Z
// [name] [info] ..."). Submatches 3 and 4 are the fields (see logServer).
var logStamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d) \[([^\]]*)\] \[([^\]]*)\] `)

// logLevels are the level words of an MCP host's log lines, in lower case:
// Claude Desktop's info and error, the other levels of electron-log and
// winston (warn, verbose, debug, silly; not winston's http, a likely server
// name), warning and trace (see isLevel).
var logLevels = map[string]bool{"error": true, "warn": true, "warning": true, "info": true, "debug": true, "verbose": true, "silly": true, "trace": true}

// isLevel reports whether b is a level word (see logLevels), in lower or
// upper case as loggers write them ("info", "INFO"; "Info" is a name), and
// whether it is info.
func isLevel(b []byte) (level, info bool) {
	if logLevels[string(b)] {
		return true, string(b) == "info"
	}
	var buf [len("warning")]byte
	if len(b) > len(buf) {
		return false, false
	}
	for i, c := range b {
		if c < 'A' || c > 'Z' {
			return false, false
		}
		buf[i] = c + 'a' - 'A'
	}
	w := buf[:len(b)]
	return logLevels[string(w)], string(w) == "info"
}

// logSessionKey returns the key of the MCP session of server name in an MCP host's
// log (see capture.use), after the tail header naming file (""
// before any). No HAR session key (see sessionKey) starts with a NUL byte, and
// the length of file keeps the keys of different files and names apart.
func logSessionKey(file string, name []byte) string {
	if file == "" {
		return "\x00log " + string(name)
	}
	return "\x00log\x00" + strconv.Itoa(len(file)) + ":" + file + string(name)
}

// logServer returns which of the two bracketed fields a and b of a line of
// an MCP host's log names the server:
//
//  1. a, when the two are the same;
//  2. the one that is not a level word (see isLevel), when the other is;
//     the line then tells where names stand, for rule 5;
//  3. when both are level words or neither is (a server named "debug", a
//     level of another name), the one that names a server of an earlier
//     line (of the same file, after tail headers), when the other does
//     not;
//  4. when both are level words, the one that is not "info" when the other
//     is (the lines that matter, messages and the starts and ends of runs,
//     are written at level info);
//  5. the field in the place the name had on the latest line that rule 2
//     decided, and before any, the first (the order of Claude Desktop's
//     per-server logs).
//
// Every line of a log of one server so names it whatever its level, as long
// as it is named by a word that is no level word, or the first line naming
// it is written at level info. Each line is decided on its own, so that
// logs of both orders joined (cat mcp*.log) are read right.
func (s *capture) logServer(a, b []byte) []byte {
	la, ia := isLevel(a)
	lb, ib := isLevel(b)
	switch {
	case bytes.Equal(a, b):
		return a
	case la && !lb:
		s.logNameFirst = 2
		return b
	case lb && !la:
		s.logNameFirst = 1
		return a
	}
	if sa, sb := s.logKnown(a), s.logKnown(b); sa != sb {
		if sa {
			return a
		}
		return b
	}
	if ia && lb {
		return b
	}
	if ib && la {
		return a
	}
	if s.logNameFirst == 2 {
		return b
	}
	return a
}

// logKnown reports whether name is a server of an earlier line of an MCP
// host's log, of the same file after tail headers (as long as its MCP session is
// kept: see maxSessions).
func (s *capture) logKnown(name []byte) bool {
	if s.p != nil && string(name) == s.p.server && s.p.file == s.logFile {
		return true
	}
	_, ok := s.sessionIdx[logSessionKey(s.logFile, name)]
	return ok
}

// logUse makes the MCP session of server name the one in use for line lineNo of
// an MCP host's log.
func (s *capture) logUse(name []byte, lineNo int) {
	if s.p != nil && string(name) == s.p.server && s.p.file == s.logFile {
		s.p.used = lineNo // the server of the line before: most lines
		return
	}
	if s.logFirst == "" && s.p == nil {
		s.logFirst = string(name)
	} else if !s.logMany && string(name) != s.logFirst {
		s.logMany = true
	}
	s.use(logSessionKey(s.logFile, name), lineNo)
	if s.p.server == "" {
		s.p.server, s.p.file = string(name), s.logFile
	}
}

// Kinds of log that check reads messages from.
const (
	logNone   = iota
	logHost   // an MCP host's log (see logStamp)
	logVSCode // VS Code's output log of an MCP server (see vscodeStamp)
	logSDK    // go-sdk's mcp.LoggingTransport
)

// Where an MCP host's log gives a message it sent or received, and where
// go-sdk's mcp.LoggingTransport gives one that its side wrote or read.
var (
	logFromClient = []byte("Message from client: ")
	logFromServer = []byte("Message from server: ")
	logWrite      = []byte("write: ")
	logRead       = []byte("read: ")
)

// logKind decides from the first non-blank line of a capture whether it is
// a log, and of which kind. For a go-sdk log it returns who wrote the
// messages of its "write: " lines: the client when the first line writes
// an initialize request, the server when it reads one, and fromUnknown
// otherwise (messages are then taken as in unmarked JSON Lines).
func logKind(line []byte) (int, direction) {
	if logStamp.Match(line) {
		return logHost, fromUnknown
	}
	if vscodeStamp.Match(line) {
		return logVSCode, fromUnknown
	}
	rest, write := bytes.CutPrefix(line, logWrite)
	if !write {
		var read bool
		if rest, read = bytes.CutPrefix(line, logRead); !read {
			return logNone, fromUnknown
		}
	}
	rest = bytes.TrimLeft(rest, " \t")
	if len(rest) == 0 || rest[0] != '{' && rest[0] != '[' {
		return logNone, fromUnknown
	}
	var sc []scan.Message
	msgs, _, err := scanText(nil, &sc, rest)
	if err == nil && len(msgs) > 0 && msgs[0].id != nil && string(msgs[0].method) == `"initialize"` {
		if write {
			return logSDK, fromClient
		}
		return logSDK, fromServer
	}
	return logSDK, fromUnknown
}

// hostLog is the log of an MCP host, as Claude Desktop writes mcp.log and
// mcp-server-NAME.log.
type hostLog struct{ *capture }

// readLine handles one line of an MCP host's log: a line with "Message from
// client: " or "Message from server: " holds the message that follows
// (Claude Desktop writes a JavaScript "{ metadata: undefined }" after it,
// which is not part of it); other lines (the host's own, the server's
// standard error, which may be JSON from a server's logger) hold none and
// are counted. start is the offset of the line's first non-blank byte.
func (s hostLog) readLine(pos position, line []byte, start int) {
	dir := fromClient
	// Only the host's own, timestamped lines say what passed: a server's
	// standard error (copied into the log without a timestamp) may say
	// anything.
	m := logStamp.FindSubmatchIndex(line[start:])
	if m == nil {
		s.logHeader(line[start:])
		s.logOther++
		return
	}
	// Each server's lines are a session of their own (see logServer).
	l := line[start:]
	s.logUse(s.logServer(l[m[6]:m[7]], l[m[8]:m[9]]), pos.line)
	if s.run.at == 0 && s.run.from == 0 {
		s.run.from = pos.line
	}
	from := start + m[1]
	i := bytes.Index(line[from:], logFromClient)
	n := len(logFromClient)
	if j := bytes.Index(line[from:], logFromServer); j >= 0 && (i < 0 || j < i) {
		dir, i, n = fromServer, j, len(logFromServer)
	}
	if i < 0 {
		// The host's lines where a run of the server starts and ends (a
		// message is neither, whatever its text says).
		switch text := line[from:]; {
		case bytes.HasPrefix(text, []byte("Initializing server")):
			s.logRun(pos, false)
		case bytes.Contains(text, []byte("transport closed")) || bytes.HasPrefix(text, []byte("Shutting down server")) ||
			bytes.HasPrefix(text, []byte("Server disconnected")):
			s.run.ended = true
		}
		s.logOther++
		return
	}
	s.logMarked++
	s.marked = true
	s.run.held = true
	i += from - start
	begin := start + i + n
	for begin < len(line) && isJSONSpace(line[begin]) {
		begin++
	}
	if begin == len(line) {
		s.invalid(pos, "", "empty message after \""+string(bytes.TrimSpace(line[start+i:start+i+n]))+"\"")
		return
	}
	end := begin + jsonExtent(line[begin:])
	s.payload(pos, "", dir, line[begin:end], begin+1)
}
