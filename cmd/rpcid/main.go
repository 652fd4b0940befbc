// Command rpcid finds JSON-RPC 2.0 responses that do not match their requests
// by id in captured traffic, such as MCP sessions through a gateway, and
// explains the id matching rule of package github.com/rpcid/rpcid.
//
// Usage:
//
//	rpcid check [-json] [FILE ...]
//	rpcid eq A B
//	rpcid key ID
//	rpcid vectors
//	rpcid proxy [-listen ADDR] [-v] URL
//	rpcid proxy [-v] -- COMMAND [ARG ...]
//
// # check
//
// Check reads captures and reports id problems. With no FILE it checks an
// embedded sample capture (a short MCP session through a gateway that turns
// numeric ids into strings), so that "go run ./cmd/rpcid check" shows what it
// does. A FILE of "-" is standard input.
//
// The format of each capture is detected from its content:
//
//   - JSON Lines: one JSON-RPC message, or one batch array of messages, per
//     line, as MCP's stdio transport writes them. A line may start with ">"
//     for a message sent by the client or "<" for one received from the
//     server. Lines without a marker are taken as the client's when they are
//     requests or notifications and as the server's when they are responses.
//     Empty lines are skipped. Lines have no length limit.
//   - HAR 1.2 (HTTP Archive, as browser developer tools and HTTP proxies write
//     it): a JSON object whose first member is "log". Messages are read from
//     each entry's request.postData.text (sent by the client) and
//     response.content.text (sent by the server; decoded first when
//     content.encoding is "base64"), for application/json bodies and for
//     text/event-stream bodies, whose "data:" events each hold a message.
//
// Each finding is printed on its own line as
//
//	FILE:LINE: LEVEL: MESSAGE      (JSON Lines; LINE counts from 1)
//	FILE:entry N: LEVEL: MESSAGE   (HAR; N counts log.entries from 1)
//
// in the order found; requests never answered are reported when the capture
// ends. LEVEL is error or warning. The findings are:
//
//   - warning: a response matched its request only under the rule because the
//     id's JSON type changed in transit (1 sent, "1" received, or the
//     reverse), or a numeric id's spelling changed (1 sent, 1.0 received).
//     SDKs that compare type and value drop such a response.
//   - error: a response whose id matches no pending request. When JavaScript
//     Number(), Python int() or Rust i64::from_str (the normalizers of the
//     TypeScript, Python and Rust MCP SDKs) would have matched it to a pending
//     request, the finding says which, and whether that SDK would accept a
//     malformed spelling of the id or deliver the response to a different
//     request.
//   - error: a request never answered (reported at the request). Requests
//     cancelled with MCP's notifications/cancelled are exempt.
//   - error: a request sent while a request with an Equal id is still pending.
//   - warning: an integer id beyond 2^53-1 in magnitude (JavaScript numbers
//     cannot hold them exactly), and a fractional id.
//   - warning: a request with a null id.
//   - error: a response with a null id (the peer could not read a request),
//     with its error code and message.
//   - error: a line, body, event or batch element that is not JSON or not a
//     JSON-RPC 2.0 message, with its position; checking goes on.
//
// A summary line follows the findings. With -json, each finding is printed
// instead as one JSON object per line, and the summary goes to standard
// error. Its members are file; line (JSON Lines) or entry (HAR); level; kind,
// one of type-changed, spelling-changed, unmatched-response,
// unanswered-request, duplicate-id, unsafe-integer, fractional-id,
// null-request-id, null-id-response and invalid-message; message, as in the
// text output; and where they apply id (the id as received, as JSON),
// request (the related request: line or entry, id and method) and lax (for
// each normalizer that would have matched: normalizer, value, request, and
// verdict "malformed" or "different").
//
// Each capture starts a new session: requests pending at the end of one file
// do not carry over to the next. Memory stays bounded by the requests
// pending and the longest line (JSON Lines) or entry (HAR), not by the size
// of a capture.
//
// Exit status: 0 when there are no findings, 1 when there are findings, 2 for
// usage errors and files that cannot be read.
//
// # eq
//
// Eq reports whether two wire ids, each given as JSON text, are equal under
// the rule, and names the clause of the rule that decided it:
//
//	$ rpcid eq '"01"' 1
//	not equal: "01" vs 1: rule 5: a string equals an integer only when it is the integer's canonical decimal spelling, and "01" has a leading zero
//
// Exit status: 0 equal, 1 not equal, 2 when an argument is not a valid id.
//
// # key
//
// Key prints the kind, the canonical key (the form all Equal ids share) and
// the JSON spelling of one wire id given as JSON text. Exit status 2 when it
// is not a valid id.
//
// # vectors
//
// Vectors prints the conformance vectors file (testdata/vectors.json of the
// module), which other SDKs can run against their own id handling.
//
// # proxy
//
// Proxy restores response ids for a client that cannot be changed: it runs
// in front of a gateway reached over HTTP, or in front of a stdio server it
// starts, and writes each response id that is Equal to a request id the
// client sent, but spelled differently, back as the client sent it. Run
// "rpcid proxy -h" for its usage, flags and exit statuses.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

const usageText = `usage:
  rpcid check [-json] [FILE ...]   report id problems in JSON Lines or HAR captures
                                   (no FILE: an embedded sample; "-": standard input)
  rpcid eq A B                     are two JSON ids equal under the rule, and why
  rpcid key ID                     kind, canonical key and JSON spelling of an id
  rpcid vectors                    print the conformance vectors (JSON)
  rpcid proxy [-listen ADDR] [-v] URL
  rpcid proxy [-v] -- COMMAND [ARG ...]
                                   restore response ids for an unchanged client,
                                   over HTTP or stdio ("rpcid proxy -h")

Ids are JSON text: quote strings for the shell, as in rpcid eq '"01"' 1.
Run "go doc github.com/rpcid/rpcid/cmd/rpcid" for details.
`

// run is the whole command: it parses args (without the program name),
// reads stdin where asked, writes results to stdout and diagnostics to
// stderr, and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return 2
	}
	switch args[0] {
	case "check":
		return runCheck(args[1:], stdin, stdout, stderr)
	case "eq":
		return runEq(args[1:], stdout, stderr)
	case "key":
		return runKey(args[1:], stdout, stderr)
	case "vectors":
		return runVectors(args[1:], stdout, stderr)
	case "proxy":
		return runProxy(args[1:], stdin, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usageText)
		return 0
	}
	fmt.Fprintf(stderr, "rpcid: unknown command %q\n", args[0])
	fmt.Fprint(stderr, usageText)
	return 2
}

// newFlags returns a flag set for a subcommand that reports to stderr.
func newFlags(name, args string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("rpcid "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: rpcid %s %s\n", name, args)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args with fs. It returns the exit status to use and
// false when the command should stop: 0 after -h, 2 after a bad flag.
func parseFlags(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	return 0, true
}
