// Package idcmd holds the rpcid commands about single ids: eq, key and
// vectors.
package idcmd

import (
	"io"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

// Eq is "rpcid eq".
var Eq = &base.Command{
	Name:      "eq",
	UsageLine: "rpcid eq A B",
	Short:     "are two JSON ids equal under the rule, and which clause decides",
	Long:      eqLong,
}

// Key is "rpcid key".
var Key = &base.Command{
	Name:      "key",
	UsageLine: "rpcid key ID",
	Short:     "kind, canonical key and JSON spelling of an id",
	Long:      keyLong,
}

// Vectors is "rpcid vectors".
var Vectors = &base.Command{
	Name:      "vectors",
	UsageLine: "rpcid vectors",
	Short:     "print the conformance vectors (JSON)",
	Long:      vectorsLong,
}

func init() {
	// The runs refer to their commands for the help they print.
	Eq.Run = func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return runEq(args, stdout, stderr) }
	Key.Run = func(args []string, _ io.Reader, stdout, stderr io.Writer) int { return runKey(args, stdout, stderr) }
	Vectors.Run = func(args []string, _ io.Reader, stdout, stderr io.Writer) int {
		return runVectors(args, stdout, stderr)
	}
}

const eqLong = `Eq reports whether two wire ids, each given as JSON text, are equal under
the rule, and names the clause of the rule that decided it (clauses as
numbered in package rpcid's documentation):

	$ rpcid eq '"01"' 1
	not equal: "01" vs 1: clause 5: a string equals an integer only when it is the integer's canonical decimal spelling, and "01" has a leading zero

Ids are JSON text: a string id keeps its quotes, which the shell needs
quoted in turn ('"01"'); 01 is not JSON at all. Eq takes no flags, so that
negative ids such as -12 are ids; a leading "--" is ignored. An argument
that is not a valid id is quoted back as typed, with why.

Exit status: 0 equal, 1 not equal, 2 when an argument is not a valid id
or there are not two arguments. -h prints this help to standard output.
`

const keyLong = `Key prints the kind, the canonical key (the form all Equal ids share) and
the JSON spelling of one wire id given as JSON text:

	$ rpcid key '"-12"'
	kind: string
	key:  -12
	json: "-12"

Ids are JSON text as for eq, and text that would drive a terminal (control
and bidirectional characters) is printed as JSON escapes. Exit status: 0,
or 2 when the argument is not a valid id or there is not one argument. -h
prints this help to standard output.
`

const vectorsLong = `Vectors prints the conformance vectors file (rpcidtest/vectors.json of the
module, JSON), which other SDKs can run against their own id handling; see
package rpcidtest. It takes no arguments. Exit status: 0, or 2 for a usage
error or when standard output cannot be written. -h prints this help to
standard output.
`
