// Package check is the rpcid check command: it reads captures (JSON Lines,
// HAR, MCP host logs) and reports the responses whose ids do not match
// their requests.
//
// The command (check.go) reads each file as a capture (capture.go), in its
// format: harFormat (har.go, harexchange.go, harbody.go, sse.go) or
// linesFormat (jsonl.go), whose first line chooses the lineFormat of the
// rest: jsonLines, hostLog (hostlog.go), vscodeLog (vscodelog.go) or sdkLog
// (sdklog.go). Each format feeds the messages it finds to one matcher
// (message.go, match.go, table.go) in the MCP session they belong to
// (mcpsession.go). The findings and the summary are written by output.go;
// what is left pending when a capture ends, by finish.go.
package check

import "github.com/rpcid/rpcid/cmd/rpcid/internal/base"

// Cmd is "rpcid check".
var Cmd = &base.Command{
	Name:      "check",
	UsageLine: "rpcid check [-json | -sarif] [FILE ...]",
	Short:     "report id problems in JSON Lines or HAR captures",
	Long:      long,
	Reference: "docs/check.md",
}

func init() { Cmd.Run = run } // run refers to Cmd for its help

// long is the usage screen of check, which -h prints; docs/check.md is the
// full reference, kept in step with it by TestHelpInStep.
const long = `Check reads captures of JSON-RPC traffic and reports id problems: responses
whose ids do not match their requests, and ids that SDKs read differently.

With no FILE it reads standard input when that is a pipe or a file with
something in it; otherwise (a terminal, /dev/null, an empty or closed
standard input) it checks an embedded sample capture, saying why on
standard error. A FILE of "-" is standard input. A gzip file or zlib stream
is decompressed first; the format is detected from the content:

  HAR 1.2      a JSON object with a "log" member, from a browser or HTTP proxy
  JSON Lines   one message or batch per line; ">" client, "<" server markers
  host log     Claude Desktop's mcp*.log ("Message from client: ...")
  VS Code log  an MCP server's output channel ("[editor -> server] ...")
  go-sdk log   mcp.LoggingTransport's log ("write: ...", "read: ...")

Findings, one per line, as FILE:LINE: LEVEL: MESSAGE (FILE:entry N in a
HAR, FILE: for the capture as a whole), then a summary line:

  type-changed         warning  an id matched only after its JSON type changed
  spelling-changed     warning  a numeric id's spelling changed (1 and 1.0)
  unmatched-response   error    a response matching no pending request
  answered-twice       error    a second response to an answered request
  unanswered-request   error    a request never answered
  duplicate-id         error    a request id Equal to a pending or cancelled one
  unsafe-integer       warning  an integer id beyond 2^53-1
  fractional-id        warning  a number id that is not an integer
  null-request-id      warning  a request with a null id
  null-id-response     error    a response with a null id, with its cause
  invalid-message      error    not JSON, not JSON-RPC 2.0, or a HAR cut short
  ambiguous-event      warning  an SSE event that clients read differently
  byte-order-mark      warning  JSON-RPC after a UTF-8 byte order mark in a HAR
  nothing-to-check     error    a capture with no JSON-RPC message

Text from a capture is cut to 64 bytes, and control and bidirectional
characters are written as JSON escapes. With -json each finding is one JSON
object per line (file, line or entry, level, kind, message, id, ...), and
with -sarif the findings are one SARIF 2.1.0 log, for CI; either way the
summary goes to standard error. A finding's explanation (what the id breaks
and for whom) is printed in full once per capture, later ones point at it;
the summary ends with the clients the findings break and the fix.

Exit status: 0 when there are no findings, 1 when there are findings, 2 for
usage errors and files that cannot be read.
`
