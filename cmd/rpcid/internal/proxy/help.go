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
	Short: "restore response ids for an unchanged client, over HTTP or stdio",
	Long:  long,
}

func init() { Cmd.Run = run } // run refers to Cmd for its help

// long is the full usage of proxy, which -h prints.
const long = `Proxy restores JSON-RPC response ids that a gateway changed in transit, for
a client that cannot be changed: each response id equal under the rpcid
rule to a request id the client sent, but spelled differently ("0" for 0),
is written back exactly as the client sent it. Nothing else changes.

HTTP mode (a URL): listen on ADDR (default 127.0.0.1:8939) and forward each
request to URL's scheme and host with the client's own path, and with URL's
query (a token, say) followed by the client's own, for MCP's streamable
HTTP and 2024-11-05 HTTP+SSE transports. Point the client at the printed
address. Requests whose Host header is not this proxy's
address, or whose Origin is a page not on this machine, are refused (DNS
rebinding). Headers pass unchanged (the client's Authorization and
X-Forwarded-For too; the proxy adds none), so a
gateway's OAuth sign-in (RFC 9728 metadata naming the gateway's URL, not
the proxy's) fails the client's check of the resource; a client given a
token directly works. It prints one line to standard error when listening:

	rpcid proxy: listening on http://HOST:PORT/PATH, forwarding to URL

(on every address, -listen :PORT, it names http://127.0.0.1:PORT/PATH for
this machine's clients and adds a warning that other machines can use the
gateway through it). Every message writes the values of URL's query (a
token) and a password in a URL as xxxxx: standard error often goes to a
host's logs.

SIGINT or SIGTERM stops it: open GET streams end at once, other requests in
flight get 5 seconds to finish (a second signal ends them at once).

stdio mode (after --): start COMMAND, pass standard input to it byte for
byte recording each request id, and pass its standard output back message
by message with response ids restored; its standard error passes through.
Both directions understand two framings, message by message: one JSON
object or array per line (MCP's stdio transport), passed on as soon as
its closing bracket arrives, LF or not, after a UTF-8 byte order mark if
one starts the line; and Content-Length framing (LSP's
base protocol: "Content-Length: N", CRLF or LF, optional other fields
such as Content-Type, an empty line, then N bytes of body), whose
Content-Length is rewritten when a restored id changes the body's length
(a byte order mark before the body is skipped too).
Everything else passes unchanged: lines that hold no object or array,
header blocks without a valid Content-Length (and the body after one that
names Content-Length but is malformed, repeated, or in a block that turns
out to be none, or on a line that starts with the field but is no header:
a reader may frame that body by it; a log line that names the field after
other text frames nothing), and messages longer than -max-message-size.

The proxy exits with COMMAND's exit status (128+N when signal N ended
it). COMMAND runs in a process group of its own, so a terminal's Ctrl-C
(or a signal to the proxy's group) reaches only the proxy, and SIGINT,
SIGTERM, SIGHUP and SIGQUIT are passed on to COMMAND once each; Ctrl-Z
stops the proxy, not COMMAND. The proxy waits for COMMAND to exit; after
a signal, once COMMAND has exited, what it wrote is relayed for 0.5
seconds at most (a second signal ends that at once), and what the client
has not read by then is dropped. When a write to standard output fails (the client went away), the
proxy closes COMMAND's standard output and input and reads nothing more:
COMMAND's next write fails as it would without the proxy (SIGPIPE ends it,
status 141, unless it ignores the signal), and a COMMAND that lives on
after that is waited for; the exit status is then 1 where COMMAND's is 0,
since its output was not all delivered. COMMAND's output is relayed to its
end after COMMAND exits, however slowly the client reads; a process
COMMAND started that holds the output open is waited for only while 2
seconds pass without data. Likewise, when a write to COMMAND's standard
input fails (it closed it), the proxy closes its own, so that the
client's next write fails instead of blocking. On Linux, a proxy killed
with SIGKILL takes COMMAND with it (the kernel sends it SIGKILL), so a
server that ignores SIGTERM does not outlive a host that gave up on it.

Flags:

	-listen ADDR              HTTP mode: address to listen on (default 127.0.0.1:8939;
	                          127.0.0.1:0 picks a free port; a non-loopback
	                          address exposes the proxy to other machines)
	-remap                    send each request with an id the proxy assigns
	                          (a small integer, never two alike in flight) and
	                          write its response back with the client's exact
	                          id; notifications/cancelled follows (see
	                          docs/proxy.md): for any bridge between the proxy
	                          and the server that may change ids
	-v                        log each restored id, each response id that
	                          matches no request or is ambiguous (Equal to
	                          ids sent in different spellings), each refused
	                          request and each rewritten endpoint event, a
	                          client that closed standard output and output
	                          dropped after a signal (stdio), and a summary
	                          on exit
	-max-pending N            request ids remembered at most (default 4096)
	-max-message-size BYTES   largest message examined; larger ones pass
	                          unchanged (default 16777216)

Exit status: stdio mode, COMMAND's (127 when it is not found, 126 when it
is not executable, 1 when its status is 0 but its output could not all be
delivered); HTTP
mode, 0 after SIGINT or SIGTERM, 1 when it cannot listen; 2 for usage
errors. -h prints this help to standard output.
`
