package check

import (
	"bufio"
	"fmt"
	"strconv"

	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
	"github.com/rpcid/rpcid/internal/scan"
)

// position is where a message is in a capture: a line of a JSON Lines
// capture or an entry of a HAR capture, both counted from 1. The zero
// position is the capture as a whole.
type position struct {
	line  int
	entry int
}

func (p position) String() string {
	if p.entry > 0 {
		return "entry " + strconv.Itoa(p.entry)
	}
	return "line " + strconv.Itoa(p.line)
}

func (p position) n() int64 { return int64(p.line + p.entry) }

// posAt returns the position of line or entry n.
func (s *capture) posAt(n int64) position {
	if s.har {
		return position{entry: int(n)}
	}
	return position{line: int(n)}
}

// answeredAt returns where the answered request x got its answer.
func (s *capture) answeredAt(x ref) position {
	if s.har {
		return position{entry: int(s.t.at(x).ans())}
	}
	return position{line: int(s.t.at(x).ans())}
}

// direction is who sent a message.
type direction int

const (
	fromUnknown direction = iota // no marker: requests are the client's, responses the server's
	fromClient
	fromServer
)

// capture checks one capture file: it reads the file in its format and
// matches the requests and responses of each MCP session it holds. Its state
// is grouped by concern in the structs it embeds.
type capture struct {
	c    *checker
	file string
	har  bool // the capture is a HAR file
	// encoding says why the capture could not be read as text, for the
	// nothing-to-check finding.
	encoding string
	msgs     []fields       // reused by payload
	scanned  []scan.Message // reused by scanText

	matcher    // requests and responses of the MCP session in use
	sessionSet // the MCP sessions of the capture
	cursor     // where the message being read is
	harState   // the HAR file being read
	noteBook   // notes on why requests went unanswered
	logState   // the MCP host's log being read
	linesState // the JSON Lines capture being read
	tally      // what the capture held
}

// A format reads the text of a capture in one format and feeds the
// messages it holds to the capture's matcher (see payload and message):
// harFormat, or linesFormat for JSON Lines and the logs, whose first line
// chooses the lineFormat of the rest.
type format interface {
	read(br *bufio.Reader) error
}

// matcher matches the responses of the MCP session in use to its requests.
type matcher struct {
	t   *table
	seq uint32
	// lostAll is a text that may answer any request of any MCP session (a
	// line of an MCP host's log too long to examine, the entries a HAR file
	// cut short lacks); lostIDs counts the entries made in the sides'
	// lostIDs and lostReqIDs (see lostText).
	lostAll    lostAny
	lostIDs    int
	methods    map[string]string // interned method names, by name: their display form
	rawMethods map[string]string // method names, by JSON text

	deferred    []deferredResponse
	deferredIdx [2]map[rpcid.Key][]int // by id: indexes into deferred, in order
	// respelled: in a go-sdk log, the requests answered by a response
	// whose id changed, and how (see noteRespelled).
	respelled map[ref]string
}

// sessionSet holds the MCP sessions of a capture. A HAR may hold several
// (a desktop host's traffic to several servers, reconnections): each is an
// mcpSession with its own requests, keyed by endpoint and session (see
// sessionKey; each WebSocket connection is its own). So may an MCP host's
// log (Claude Desktop's mcp.log, or per-server logs joined): each server
// named on its lines is an MCP session (see logSessionKey). The matcher's
// t and deferredIdx, lostStream, and the log's run, are those of the MCP
// session in use, p.
type sessionSet struct {
	p            *mcpSession
	sessions     []*mcpSession
	sessionIdx   map[string]*mcpSession
	sessionLimit int // the number of MCP sessions at which idle ones are forgotten, if above maxSessions
	// seen remembers the SSE events with ids of all MCP sessions, for
	// redeliveries.
	seen       seenEvents
	lostStream int // the first HAR entry with an event stream and no body, or 0
	firstLost  int // the same, of all MCP sessions
}

// cursor is where the message being read is, and what the text it is in
// has shown so far.
type cursor struct {
	// HAR body ("request" or "response") and SSE event, and batch element
	// (0: none).
	bodyName              string
	event, element, frame int
	bodyLine              int // the line of a newline-delimited HAR body
	// batchAnswered: the ids of the responses of the batch being read
	// (see batchAnswers).
	batchAnswered map[idKey]bool
	offsetBase    int64 // where the JSON text being read starts in its HAR body
	// atEOF says the JSON Lines line being read ends the input without a
	// LF (see lostText).
	atEOF bool
	// strict: the HAR body being read is the answer to a JSON-RPC request
	// (or a WebSocket connection carrying JSON-RPC), examined whatever it
	// holds; httpError: it is the body of a response with a status other
	// than 2xx. examined and passed say whether any of the body's JSON
	// texts was examined or passed over as no JSON-RPC (see notRPC), and
	// hasRPC whether it held a JSON-RPC 2.0 message.
	strict, httpError        bool
	examined, passed, hasRPC bool
}

// harState is the state of the HAR file being read: the file as a whole
// and the entry being read.
type harState struct {
	// harBroken says why a HAR file could not be read from some point on
	// (before its first entry, inside an entry or after one), for the
	// nothing-to-check finding; harBrokenAfterEntries, that the point is
	// after its entries array ended. harBase is where the HAR's text starts
	// in the file (after a UTF-8 byte order mark), for the offsets of
	// findings.
	harBroken             string
	harBrokenAfterEntries bool
	harBase               int64
	// final: the HAR has been read; deferred responses are matched now.
	final         bool
	entryRequests []ref // requests of the current entry
	// ownDups are the first client requests of the HAR entry being read
	// queued behind a pending request of an earlier entry with an Equal
	// id, by its key: a response in the entry's response body answers
	// them first (see own).
	ownDups map[idKey]ownDup
	// entryLost are the texts of the response body of the HAR entry being
	// read that could not be read, for the requests of its POST.
	entryLost []entryLost
	// failedExchange: the HAR entry being read has a response status
	// other than 2xx (and not a missing one), so a client answer in its
	// request body did not reach the server, or may not have; undelivered
	// are the server requests such answers were for, which stay pending
	// (exchangeEnd notes why), and undeliveredLater the indexes in
	// deferred of such answers to server requests not read yet (of another
	// session: a POST refused for want of a session id). refusal is the
	// error of a JSON-RPC error in its response body with a null id, no id
	// or an id of no request (with what the id was): the HTTP transport
	// refusing the HTTP request, as the TypeScript SDK's Streamable HTTP
	// server does with 400 "Bad Request: No valid session ID provided" and
	// 404 "Session not found" and a null id, the Python SDK's with the id
	// "server-error", and as MCP 2025-03-26 allows with no id ("The HTTP
	// response body MAY comprise a JSON-RPC error response that has no
	// id").
	failedExchange   bool
	undelivered      []ref
	undeliveredLater []int
	refusal          string
	// reqNote is the note of the HAR entry being read when the body of its
	// request is missing, for the responses in it that match no request.
	reqNote uint32
	// inWebSocket: the messages being read are a HAR entry's WebSocket
	// frames.
	inWebSocket bool
	// resumed: the HAR entry being read is a GET with Last-Event-ID, a
	// client resuming an event stream (see redelivered).
	resumed    bool
	unreadable bool // the response body of the HAR entry being read could not be decoded
	// cut, if not "", says that the response body of the HAR entry being
	// read is shorter than its content.size: the capture tool kept only
	// part of it.
	cut string
	// redirectNext is the MCP session of a HAR entry answered with a
	// redirect (3xx), and redirectFrom that of the entry before the one
	// being read, if it was one.
	redirectNext, redirectFrom *mcpSession
}

// linesState is what a JSON Lines capture has shown of its lines.
type linesState struct {
	// loneBracket: the first non-blank line of a JSON Lines capture is
	// only firstByte, "{" or "[" (JSON printed over several lines).
	loneBracket bool
	firstByte   string
	// Direction markers: whether any line had one, and the first unmarked
	// request with a method only servers send.
	marked bool
	// unmarkedLines counts the JSON Lines lines with a message and no
	// direction marker, firstUnmarked is the first of them.
	unmarkedLines, firstUnmarked int
	initialized                  bool
}

// tally is what the capture held, for the summary and the nothing-to-check
// finding.
type tally struct {
	// counts are the messages read, added to the checker's when the
	// capture has been read to its end.
	counts   counts
	messages int
	nonBlank int
	entries  int
	// HAR entries that are not HAR entries (an invalid-message each).
	badEntries int
	skipped    map[string]int // HAR bodies not examined, by media type
	// HAR WebSocket connections without frames in the capture, and frames
	// of connections without JSON-RPC, not examined.
	lostSockets, skippedFrames int
	otherEvents                map[string]int // SSE events of other types, by type
	findings                   int
	bytes                      int64
}

func newCapture(c *checker, file string) *capture {
	s := &capture{c: c, file: file}
	s.t = newTable(nil)
	s.noteIndex = map[string]uint32{}
	s.noBody = map[uint32]bool{}
	s.noAnswer = map[uint32]bool{}
	s.methods = map[string]string{}
	return s
}

// report emits a finding at pos.
func (s *capture) report(pos position, level, kind, msg string, f *finding) {
	if f == nil {
		f = &finding{}
	}
	short := f.short
	if s.log == logHost && s.logMany && s.p != nil && pos.line > 0 {
		// The lines of several servers, each with ids of its own: a
		// finding holds for one server's, which it names.
		f.Server = base.ShowString(s.p.server)
		msg = "server [" + f.Server + "]: " + msg
		short = "server [" + f.Server + "]: " + short
	}
	if s.run.overlap != "" {
		switch kind {
		case kindDuplicate, kindAnsweredTwice, kindUnanswered, kindUnmatched:
			msg += "; " + s.run.overlap
			short += "; " + s.run.overlap
			if f.Note == "" {
				f.Note = s.run.overlap
			}
		}
	}
	if s.marked && s.unmarkedLines > 0 && f.Hint == "" {
		switch kind {
		case kindDuplicate, kindAnsweredTwice, kindUnanswered, kindUnmatched:
			// Which side sent an unmarked line is a guess in a capture
			// that marks the others.
			which := fmt.Sprintf("line %d has", s.firstUnmarked)
			if s.unmarkedLines > 1 {
				which = fmt.Sprintf("%d lines have (the first: line %d)", s.unmarkedLines, s.firstUnmarked)
			}
			f.Hint = "the capture marks lines with direction markers, > (client) and < (server), but " + which + " none: an unmarked request is read as the client's and an unmarked response as the server's"
			msg += "; " + f.Hint
			short += "; " + f.Hint
		}
	}
	if f.short != "" {
		f.short = short
	}
	f.File, f.Line, f.Entry = s.file, pos.line, pos.entry
	f.Level, f.Kind, f.Message = level, kind, msg
	s.findings++
	s.c.emit(f)
}

// invalid reports a line, body or element that is not a JSON-RPC message.
func (s *capture) invalid(pos position, loc, msg string) {
	s.report(pos, levelError, kindInvalid, loc+msg, s.where())
}

// where returns a finding holding where in a line or entry the message
// being read is (the facts that loc prefixes give in the text).
func (c *cursor) where() *finding {
	return &finding{Body: c.bodyName, Event: c.event, Frame: c.frame, BodyLine: c.bodyLine, Element: c.element}
}
