// Package proxy is the rpcid proxy command: it stands between a client and a
// JSON-RPC server, over HTTP or a command's stdio, and gives each response
// back the id its request was sent with.
package proxy

import "github.com/rpcid/rpcid/cmd/rpcid/internal/base"

// Cmd is "rpcid proxy".
var Cmd = &base.Command{
	Name: "proxy",
	UsageLine: "rpcid proxy [-listen ADDR] [-remap] [-v] [-max-pending N] [-max-message-size BYTES] URL\n" +
		"       rpcid proxy [-remap] [-v] [-max-pending N] [-max-message-size BYTES] -- COMMAND [ARG ...]",
	Short:     "restore response ids for an unchanged client, over HTTP or stdio",
	Long:      long,
	Reference: "docs/proxy.md",
}

func init() { Cmd.Run = run } // run refers to Cmd for its help

// long is the usage screen of proxy, which -h prints; docs/proxy.md is the
// full reference, kept in step with it by TestHelpInStep.
const long = `Proxy restores JSON-RPC response ids that a gateway changed in transit, for
a client that cannot be changed: each response id equal under the rpcid
rule to a request id the client sent, but spelled differently ("0" for 0),
is written back exactly as the client sent it. Nothing else changes.

HTTP mode (a URL): listen on ADDR and forward each request to URL's scheme
and host with the client's own path, and URL's query before the client's
(MCP's streamable HTTP and 2024-11-05 HTTP+SSE transports). Point the
client at the address the proxy prints on standard error:

	rpcid proxy: listening on http://HOST:PORT/PATH, forwarding to URL

Requests whose Host is not the proxy's address, or whose Origin is a page
not on this machine, are refused. Headers pass unchanged and the proxy adds
none; a gateway's OAuth sign-in fails through it (a client given a token
works). Query values and passwords in messages are written as xxxxx.
SIGINT or SIGTERM stops it.

stdio mode (after --): start COMMAND, pass standard input to it byte for
byte recording each request id, and pass its standard output back message
by message with response ids restored; its standard error passes through.
Messages are one JSON object or array per line (MCP's stdio transport) or
Content-Length framed (LSP's base protocol); everything else passes
unchanged. Signals are passed on to COMMAND, which runs in a process group
of its own.

Flags:

  -listen ADDR             HTTP mode: where to listen (default 127.0.0.1:8939)
  -remap                   send each request with an id of the proxy's own and
                           answer with the client's exact id (cancels follow)
  -v                       log restored, unmatched and ambiguous ids; a summary
  -max-pending N           request ids remembered at most (default 4096)
  -max-message-size BYTES  larger messages pass unexamined (default 16777216)
  -max-buffered BYTES      HTTP mode: bytes all requests may hold at once;
                           beyond them, 503 (default 134217728, or twice
                           -max-message-size if that is more)
  -body-timeout DURATION   HTTP mode: longest wait for the next byte of a
                           request body; then 408 and the connection closes
                           (default 30s)

Exit status: stdio mode, COMMAND's (128+N when signal N ended it, 127 when
it is not found, 126 when it is not executable, 1 when its status is 0 but
its output could not all be delivered); HTTP mode, 0 after SIGINT or SIGTERM,
1 when it cannot listen; 2 for usage errors.
`
