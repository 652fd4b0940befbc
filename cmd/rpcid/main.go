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
// "rpcid COMMAND -h" prints the usage screen of a command. Each command is a
// package under internal: check (captures), proxy (restoring ids for an
// unchanged client), and idcmd (eq, key and vectors); internal/base holds
// what they share.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
	"github.com/rpcid/rpcid/cmd/rpcid/internal/check"
	"github.com/rpcid/rpcid/cmd/rpcid/internal/idcmd"
	"github.com/rpcid/rpcid/cmd/rpcid/internal/proxy"
)

// commands are the subcommands, in the order the usage lists them.
var commands = []*base.Command{
	check.Cmd,
	idcmd.Eq,
	idcmd.Key,
	idcmd.Vectors,
	proxy.Cmd,
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// usageText is what rpcid prints without a command, or after "help".
const usageText = `usage:
  rpcid check [-json] [FILE ...]   report id problems in JSON Lines or HAR captures
                                   (no FILE: standard input when it holds a capture,
                                   else an embedded sample; "-": standard input)
  rpcid eq A B                     are two JSON ids equal under the rule, and which clause decides
  rpcid key ID                     kind, canonical key and JSON spelling of an id
  rpcid vectors                    print the conformance vectors (JSON)
  rpcid proxy [-listen ADDR] [-v] URL
  rpcid proxy [-v] -- COMMAND [ARG ...]
                                   restore response ids for an unchanged client,
                                   over HTTP or stdio ("rpcid proxy -h")

Ids are JSON text: quote strings for the shell, as in rpcid eq '"01"' 1.
"rpcid COMMAND -h" prints the full usage of a command.
`

// run is the whole command: it parses args (without the program name),
// reads stdin where asked, writes results to stdout and diagnostics to
// stderr, and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return 2
	}
	for _, c := range commands {
		if c.Name == args[0] {
			return c.Run(args[1:], stdin, stdout, stderr)
		}
	}
	switch args[0] {
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usageText)
		return 0
	}
	fmt.Fprintf(stderr, "rpcid: unknown command %q\n", base.Printable(args[0]))
	fmt.Fprint(stderr, usageText)
	return 2
}
