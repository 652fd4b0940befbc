// Package check is the rpcid check command: it reads captures (JSON Lines,
// HAR, MCP host logs) and reports the responses whose ids do not match
// their requests.
package check

import "github.com/rpcid/rpcid/cmd/rpcid/internal/base"

// Cmd is "rpcid check".
var Cmd = &base.Command{
	Name:      "check",
	UsageLine: "rpcid check [-json | -sarif] [FILE ...]",
	Short:     "report id problems in JSON Lines or HAR captures",
	Long:      long,
}

func init() { Cmd.Run = run } // run refers to Cmd for its help

// long is the full usage of check, which -h prints.
const long = `Check reads captures and reports id problems. With no FILE it reads
standard input when that is a pipe or a file with something in it (cat
x.jsonl | rpcid check, rpcid check < x.jsonl), and otherwise (a terminal,
another character device such as /dev/null, a standard input that is not
open or is empty) checks an embedded sample capture (a short MCP session
through a gateway that turns numeric ids into strings), saying why on
standard error, so that "go run ./cmd/rpcid check" shows what it does
wherever it is run. A pipe that stays open without sending anything is
waited for, with a note on standard error after 2 seconds. A FILE of "-"
is standard input, which can be named once. A directory or a file that cannot be read is reported as
"could not read" and not counted as checked.

The format of each capture is detected from its content, after a gzip
file (capture.har.gz) or zlib stream (mitmproxy's .zhar) is
decompressed (positions then count in the text it holds) and a UTF-8
byte order mark is skipped; a UTF-16 or UTF-32 file with a byte order
mark (Windows PowerShell 5's > writes UTF-16) is one nothing-to-check
finding that says so and how to convert it. The logs below are told by
their first line after the headers tail writes before each file's lines
("==> FILE <==") and lines that no JSON Lines capture starts with (no
direction marker, object with a "jsonrpc" member, array of objects, or
lone "{" or "[": a server's standard error, which a partial log such as
tail -n output may start with), up to 64 such lines, which are then
lines without a message:

  - HAR 1.2 (HTTP Archive, as browser developer tools and HTTP proxies write
    it): a JSON object with a "log" member, wherever it is, whose value is
    an object, and no member of a JSON-RPC message (jsonrpc, id, method,
    result, error, params); a first object longer than 1 MiB is decided on
    its first 1 MiB. Messages are read from each entry's
    request.postData.text (sent by the client) and response.content.text
    (sent by the server; decoded first when content.encoding is "base64"),
    for bodies of the JSON types httpid reads (application/json, +json,
    and application/json-rpc and application/jsonrequest, which
    JSON-RPC over HTTP and the Zabbix API use: one JSON text, or objects
    and arrays back to back, as httpid reads a long-lived stream; offsets
    count from the start of the body), newline-delimited ones
    (application/x-ndjson, application/jsonl, application/stream+json,
    RFC 7464 application/json-seq and the like, as httpid reads them),
    each line a message or batch (offsets count from the start of the
    line), and text/event-stream bodies, whose events of type "" or
    "message" each hold a message, as does an event typed "message" with
    spaces around it, with an ambiguous-event warning (go-sdk and mcp-go
    trim the type and read it; clients that follow the SSE standard
    ignore it); events of other types, such as the "endpoint" event of
    the 2024-11-05 HTTP+SSE transport, are not examined, and are counted
    in the summary.
    A body of another media type is examined when it is JSON holding a
    JSON-RPC 2.0 message ("jsonrpc":"2.0"): browsers send a string body
    as text/plain unless told otherwise; likewise JSON texts back to
    back or one per line, and an event stream, of which one holds such
    a message. JSON that is no JSON-RPC, as a
    browser's HAR holds beside an MCP session (OAuth documents, REST
    calls, a page's own event streams), and text that is not JSON at all
    where nothing asks for JSON-RPC (a dev server's heartbeat events), are
    passed over, not reported: a
    body, event or frame without a "jsonrpc" member that has neither a
    "method" nor an "id" with a "result" or "error", or that is the body
    of a response whose status is not 2xx (OAuth's
    {"error":"invalid_token"} with 401). The answer to a JSON-RPC request
    (a 2xx response to a request body holding a JSON-RPC 2.0 message) is
    examined whatever it holds. The frames of a WebSocket connection, as
    Chrome and mitmproxy record them in an entry's _webSocketMessages
    ("send" by the client, "receive" by the server; text frames, and
    binary frames in base64), are examined when any of them holds a
    JSON-RPC 2.0 message. A UTF-8 byte order mark at the start of a body,
    or of a line of a newline-delimited one (before or after its json-seq
    record separator), is skipped, as httpid skips it, and a
    byte-order-mark warning says who reads the message after it and who
    fails on it; one at the start of an event's data or a frame is not
    (only the one that starts an event stream is, as the SSE standard
    says).
    Responses are matched to requests across all entries of the file
    whatever their order: in the HTTP+SSE transport the GET stream, listed
    first, carries the answers to POSTs made later (each answered 202).
    Of requests pending with Equal ids, a response in an entry's response
    body answers those of the entry's request body first, as httpid
    answers a POST's requests on that POST's response; otherwise the one
    sent first.
    A HAR that holds several MCP sessions (a desktop host's traffic to
    several servers, a session started anew) keeps the requests of each
    apart: a session is an endpoint, the request URL without query or
    fragment (servers behind one origin on different paths, as path-based
    gateways serve them, are different endpoints), with the request's
    Mcp-Session-Id header or, for a request without one (initialize), the
    Mcp-Session-Id its response assigns; in the 2024-11-05 HTTP+SSE
    transport, the sessionId (or session_id) that the GET stream's
    endpoint event names and its POSTs carry in their URL (a reconnect is
    a new session); and each WebSocket connection is one; ids are
    matched, and duplicates found, within a session. A
    response read before any request with its id, that finds none in its
    session, answers the first pending one of another session: an
    HTTP+SSE endpoint event may send the POSTs to another host or path
    than the GET stream that carries their answers.
    An SSE event on a stream the client resumed (a GET with
    Last-Event-ID) whose id field and data (the same bytes) repeat those
    of an event read before in its session is a redelivery (a client resuming
    a stream with Last-Event-ID gets the events after it replayed with
    their ids, which MCP makes unique across a session's streams): it is
    counted in the summary and not examined again. An event repeating an
    id with other data is not that event, and is examined as a message.
    A request whose HTTP exchange failed (a status other than 2xx, or
    Chrome's status 0 with an _error) without an answer in its body can
    no longer be answered: a later request with an Equal id is no
    duplicate, and when it has the same method (a retry after 401, a
    307 or 308 redirect) it is the same request, sent again, and only
    the last attempt is checked.
  - JSON Lines, anything else: one JSON-RPC message, or one batch array of
    messages, per line, as MCP's stdio transport writes them. A JSON Lines
    file whose first message has a member named "log" is still JSON Lines.
    A line may start with ">" for a message sent by the client or "<" for
    one received from the server. Lines without a marker are taken as the
    client's when they are requests or notifications and as the server's
    when they are responses. Empty lines are skipped. A line of more than
    64 MiB (more than a peer takes as one message; a few KB of gzip can
    hold gigabytes of one line) is reported and skipped, after its first
    64 MiB were read into memory: whatever its length, such a line costs
    as much memory as one of 64 MiB (about 180-270 MiB at the peak).
  - An MCP host's log, as Claude Desktop writes its mcp-server-NAME.log
    files and mcp.log: a capture whose first line (see above) starts
    with an RFC 3339 timestamp and two
    bracketed fields, the level and the server's name in either order
    ("2025-10-03T07:51:43.656Z [NAME] [info] ...", "2025-07-30T21:16:29.756Z
    [info] [NAME] ..."). A timestamped line holding "Message from client: "
    or "Message from server: " gives the message that follows (the
    JavaScript "{ metadata: undefined }" after it is not part of it), sent
    by that side; other lines (the host's own, the server's standard error,
    which may be JSON from its logger or say anything) hold no message and
    are counted in the summary as log lines not examined. Each server named
    on the timestamped lines is a session of its own, as in mcp.log, which
    interleaves the lines of all servers, and in per-server logs joined (cat
    mcp-server-*.log, tail -f): ids are matched, and duplicates found, among
    one server's lines only (every server's client starts its ids at 0).
    After a tail header, the servers of the file it names are sessions of
    their own, as each FILE given to check is (tail -f mcp*.log follows
    mcp.log, which holds every server's lines, and the per-server logs,
    which hold each server's). Of the two fields, the name is the one that
    is not a level word (error, warn, warning, info, debug, verbose, silly,
    trace, in lower or upper case); when both are (a server named "debug")
    or neither is (a level of another name), the one that named a server on an
    earlier line (of its file) when the other did not; else, of two level words, the one
    that is not "info" (the host writes messages at level info); else the
    field where the name stood on the latest line a level word decided, and
    before any, the first. Once the log has named a second server, every
    finding on a server's line starts with "server [NAME]: " and has
    "server" in -json (findings printed before that have neither). The host appends every run of a server to the log: an
    "Initializing server..." line after that server's run ended ("...
    transport closed", "Shutting down server", "Server disconnected")
    starts a new one, whose ids are its own (the requests of the run
    before are reported then); when a run starts before the one before
    ended, the log does not say which run each message belongs to, and
    findings about requests and answers of that server say so. A log
    need not start where a run does (tail -n, as MCP's debugging guide
    has users follow mcp*.log; an excerpt; a rotated log): a server's
    lines before its first "Initializing server..." are the run the log
    starts in, a run like the others. A line holding a message neither
    starts nor ends a run, whatever its text.
  - VS Code's output log of an MCP server (its "MCP: NAME" channel in the
    Output view, copied or saved to a file): a capture whose first line
    (see above) starts with a local time to the millisecond and a level
    in brackets ("2026-07-24 02:03:14.089 [debug] ...", levels trace,
    debug, info, warning, error). A timestamped line whose text starts
    with "[editor -> server] " or "[server -> editor] " (in VS Code's
    early MCP support, of March 2025, "[Client Says] " or
    "[Server Says] ") gives the message after it, to
    the end of the line, sent by the client (VS Code) or the server;
    other lines (VS Code's own, the server's standard error as "[server
    stderr] ...", the lines of a stack trace) hold no message and are
    counted as log lines not examined. VS Code writes the messages at
    log level debug (info for a server in dev mode): set the output's
    level to Debug first. It writes each one as JavaScript's
    JSON.stringify writes what it sent or read: an id's JSON type is as
    received ("1" stays a string), but a number is spelled as JavaScript
    spells it (1.0 as 1; an integer beyond 2^53 as the double JSON.parse
    read), so spelling changes do not show (the "[Server Says]" lines of
    the first format hold the server's line as written). The log is of
    one server: each file (after tail headers, each file they name) is a
    session. A run of the server starts at "Starting server" or
    "Connection state: Starting" and ends at "Stopping server" or
    "Connection state: Stopped" or "Error"; VS Code runs one connection
    to a server at a time, so a start after the messages of a run ends
    that run, whatever the log said before: its requests are reported
    then, and the ids of the next run are its own. The lines are read as
    VS Code writes them in English. Cursor's MCP log has the same
    timestamps and levels: it is read as this format, and without
    message lines it is a nothing-to-check finding that says so.
  - The log of go-sdk's mcp.LoggingTransport: a capture whose first
    line (see above) is "write: " or "read: " and a JSON object or array.
    Each such line is a message its side wrote or read; that side is the
    client when the first line writes an initialize request and the
    server when it reads one (otherwise messages are taken as unmarked
    JSON Lines). Other lines ("read error: EOF", whatever else shares the
    log) are counted as log lines not examined.

Each finding is printed on its own line as

	FILE:LINE: LEVEL: MESSAGE      (JSON Lines; LINE counts from 1)
	FILE:entry N: LEVEL: MESSAGE   (HAR; N counts log.entries from 1)
	FILE: LEVEL: MESSAGE           (the capture as a whole)

in the order found; requests never answered (and HAR responses that found
no request) are reported when the capture ends. LEVEL is error or warning.
Text from the capture is cut to 64 bytes, and control characters (C0, DEL,
C1), line separators and Unicode bidirectional controls are written as
JSON escapes such as \u202e, so that no capture can forge or reorder a
line. The findings, by kind:

  - type-changed, spelling-changed (warning): a response matched its request
    only under the rule because the id's JSON type changed in transit (1
    sent, "1" received, or the reverse), or a numeric id's spelling changed
    (1 sent, 1.0 received, or the reverse); in the go-sdk log of the side
    that sent the response, the finding says that side changed it. SDKs
    that compare type and value (go-sdk, mcp-go's stdio and SSE
    transports, C#) drop a response whose id changed type. A changed
    spelling go-sdk, mcp-go and the TypeScript SDK match by value; SDKs
    that compare spellings byte for byte (creachadair/jrpc2) miss it, and
    those that take only integer spellings refuse the odd one (rmcp, C#
    and the Python SDK refuse 1.0, rmcp -0; sourcegraph/jsonrpc2 fails on
    both and closes the connection). The finding says which side had the
    odd spelling.
  - unmatched-response (error): a response whose id matches no pending
    request; in a HAR entry whose POST body is missing, the finding says
    that body may have held the request it answers; after a line, body,
    event or frame that could not be read, sent by the side whose
    requests it answers, that the text may hold that request (unless
    what can be read of it shows a response, or a request with another
    id); and for a response to
    a server request, that a GET event stream without its body may have
    carried that request; in the run an MCP host's log starts in (its
    server's lines before any start of the server), that the request may
    be before the log's first line. When JavaScript
    Number(), Python int() or Rust i64::from_str (the normalizers of the
    TypeScript, Python and Rust MCP SDKs; for a numeric id, the double
    that JavaScript's JSON.parse reads) would have matched it to a
    pending request, the finding says which, and whether
    that SDK would accept a malformed spelling of the id or deliver the
    response to a different request.
  - answered-twice (error): a second response to a request already
    answered (among the last 65536 answered, fewer when their ids exceed 64
    MiB in all), with where the first was.
  - unanswered-request (error): a request never answered (reported at the
    request). Requests cancelled with MCP's notifications/cancelled are
    exempt. When a HAR holds the request's HTTP response (a success other
    than 202 or 204) without its body, as tools that write HAR files often
    leave out event-stream bodies, the finding says the capture has no
    response rather than that none was sent; likewise for a request
    answered 202 Accepted or 204 No Content when a GET event stream in
    the HAR, which may have carried its answer, has no body, for an
    entry without a response object (a HAR of requests only), and for
    status 0 without an _error (Chrome writes it for a request still
    waiting for its response). A request answered 204 otherwise says so,
    as does one whose 2xx response held no response with its id (a login
    page, a plain "Accepted"), which has no response in the capture when
    a GET event stream lacks its body. When a line, body, event or
    frame that could hold its answer could not be read (it is not JSON,
    it is cut short, or it is a line over 64 MiB, not examined), the
    finding says the capture has no response and names that text, which
    may hold it: for a line of JSON Lines or a host's log, or a WebSocket
    frame, the requests pending when it came, of the side it answers
    (either, without a marker); for a HAR response body, the requests of
    its own POST, or for a GET stream those whose answer was due on a
    stream; for a HAR request body left out or not JSON, the server's
    requests; for a HAR file cut short, any of these. A text whose
    readable start shows its id may answer only requests with an Equal
    id; one that starts with neither "{" nor "[", or shows a "method"
    member, answers none.
  - duplicate-id (error): a request sent while a request with an Equal id is
    still pending, or after one with it was cancelled (MCP forbids reusing
    an id; the new request takes the responses with it).
  - unsafe-integer (warning): an integer id beyond 2^53-1 in magnitude, with
    what goes wrong and for whom: whether a float64 holds it exactly (if not,
    the value JavaScript and go-sdk read instead), whether it is beyond int64
    (go-sdk overflows, or refuses the message where float64 cannot hold
    the id at all; rmcp and C# reject it, the Python SDK keeps it when it
    is spelled as an integer and rejects it otherwise), and that the
    TypeScript SDK rejects it.
  - fractional-id (warning): a number id that is not an integer: go-sdk
    reads it as the integer named (truncated, or the one float64 rounds it
    to), or its conversion to int64 overflows (beyond int64), or it
    refuses the message (beyond float64); the Python, Rust and C# SDKs
    reject it, and so does the TypeScript SDK unless JSON.parse rounds it
    to a safe integer (1e-400 to 0), which it then reads as go-sdk does.
  - null-request-id (warning): a request with a null id. It is pending like
    any other: a response with a null id answers it (no finding), unless
    the response is a parse error or an invalid request, which is
    reported, naming it, since it may as well reply to an unreadable
    message; unanswered, it is an unanswered-request.
  - null-id-response (error): a response with a null id, with its cause: the
    peer could not read a request (error -32700 or -32600), or it read a
    request and dropped its id (a result, or any other error code). When
    the side it answers sent a notification before it, it may instead
    answer a notification, which JSON-RPC forbids: the finding names the
    latest, and calls it likely answered when the error message names its
    method or, in a HAR, when it came in the exchange of a notification and
    of no pending request. Otherwise the finding names the request pending
    when it came (from the same HTTP exchange or WebSocket connection, or
    else the oldest pending request not already taken by another null-id
    response), which may still get an answer of its own; if it never does,
    its unanswered-request finding says the null-id response is likely (or
    may be) its answer. A JSON-RPC error in a HAR response other than 2xx
    whose id is null, missing or no request's sent before it in its
    session is not one: it is the HTTP
    transport refusing the HTTP request (400 "Bad Request: No valid
    session ID provided", 404 "Session not found"), and the requests of
    that exchange are unanswered-request findings saying so. A client answer in a POST refused or failed
    (no 2xx status) answers no server request: if the server request is
    never answered, its finding says where the answer went and why.
  - invalid-message (error): a HAR file cut short or not JSON inside or
    after an entry, with the byte offset where the input ends or of the
    byte at fault (before any entry could be read, it is the
    nothing-to-check finding); data after a HAR file's object (another
    capture joined to it with cat, which is not read), or a line, body,
    event or batch element that is not
    JSON (RFC 8259, with strict UTF-8) or not a JSON-RPC 2.0 message, with
    its position, including a message whose jsonrpc, id, method, result or
    error member is named twice or only by a case variant ("ID"), which
    encoding/json and exact readers read differently, or whose id the rule
    refuses (a number beyond ErrRange's bound); checking goes on.
  - ambiguous-event (warning): a HAR event-stream event holding JSON-RPC
    that SSE clients read differently: its type is "message" with spaces
    around it (go-sdk and mcp-go trim it and read a message, so check
    does; browsers and the TypeScript SDK ignore the event), or the body
    ends in it without the blank line that ends it: if the stream ended there, clients
    that follow the SSE standard (WHATWG HTML 9.2.6: browsers, the
    TypeScript SDK) discard the event, and go-sdk and mcp-go deliver it.
    The capture cannot tell whether the stream had ended, so the event is
    read as a message too.
  - byte-order-mark (warning): a HAR body, or a line of a
    newline-delimited one, whose JSON-RPC follows a UTF-8 byte order mark
    (RFC 8259 section 8.1 lets parsers ignore it): fetch's json() (the
    TypeScript SDK's client), Python's json.loads of bytes and
    System.Text.Json's stream readers skip it and read the message, which
    check reads too; encoding/json (go-sdk, mcp-go) fails on it. In a
    JSON Lines capture only a mark at the start of the file is skipped: a
    later line that starts with one is an invalid-message, since stdio
    transports hand each line to their JSON parser as text, and go-sdk's
    (encoding/json) and the TypeScript SDK's (JSON.parse) fail on it.
  - nothing-to-check (error): a capture with no JSON-RPC message (empty, only
    blank lines, a HAR without JSON-RPC bodies), saying what it holds.

In a capture without direction markers, findings involving requests say so
when a request looks like one the server sent (sampling/createMessage,
roots/list, elicitation/create, or ping after initialize): markers would
settle which side sent what. In a capture that marks its lines, such
findings say which lines have no marker (an unmarked request is read as
the client's, an unmarked response as the server's).

A summary line follows the findings. With -json, each finding is printed
instead as one JSON object per line (DEL, C1 and bidirectional controls
escaped too), and the summary goes to standard error. Its members are file;
line (JSON Lines) or entry (HAR), both absent for the capture as a whole;
level; kind; message, as in the text output; and where they apply: id (the
id as received, as JSON: a number stays a number, which jq 1.6 and
JavaScript's JSON.parse round beyond 2^53, so read ids as text there);
method (the request's); server (in an MCP host's log that has named
more than one server, the server whose line it is); request (the related
request: line or entry, id and method); lax (for each normalizer that would
have matched: normalizer, value, request, and verdict "malformed" or
"different"); number (integer, int64, float64Exact, float64, goSDK); error
(a null-id response's error object); answeredLine or answeredEntry; note
(why a request may have gone unanswered, or, for a response matching no
request, that the HAR lacks the request body that may have held it or
that the host log starts within the run); hint
(direction markers); and for
an invalid message where it is: body ("request" or "response") and event
or bodyLine (the line of a newline-delimited body, from 1) in a HAR entry,
or body "websocket" and frame (the WebSocket message, from 1), element of
a batch, column on a line or offset in a body, event, body line or frame.

Each capture starts a new session: requests pending at the end of one file
do not carry over to the next. Memory stays bounded by the requests
pending (about 120 bytes each with integer ids), the last 65536 answered
requests of the capture (to recognize a second answer; fewer when their ids
exceed 64 MiB in all), the longest line
(JSON Lines, at most 64 MiB) or entry (HAR), and in a HAR the responses
waiting for a later request, its sessions and the last 65536 SSE event ids
of its sessions (fewer when the ids exceed 16 MiB in all; an event replayed
after its id was forgotten is read as a new message), not by the size
of a capture. A HAR's sessions with nothing pending are kept up to 1024; beyond
that the least recently used are forgotten (a second answer to one of
their requests then reads as answering no request). Output is buffered,
and written whenever check waits for input.

A capture that cannot be read to its end (a read error, a truncated or
corrupt compressed file) is reported as "could not read" and not counted as
checked: its findings so far are printed and counted, and the summary
says how many messages were read from it.

Exit status: 0 when there are no findings, 1 when there are findings, 2 for
usage errors and files that cannot be read. -h prints this help to
standard output.
`
