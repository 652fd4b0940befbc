// Package base holds what the rpcid commands share: the Command type, the
// help and flag conventions, and printing text from captures and command
// lines safely to a terminal.
package base

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// A Command is one rpcid subcommand, such as check or proxy.
type Command struct {
	Name      string // as typed after "rpcid"
	UsageLine string // "rpcid NAME ARGS", one line per form
	Short     string // one line for the list of commands
	Long      string // the usage screen that -h prints after UsageLine
	Reference string // the document with the full reference, named on -h's last line

	// Run runs the command with args (after its name), reading stdin where
	// asked, writing results to stdout and diagnostics to stderr, and
	// returns the exit status.
	Run func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// PrintHelp prints the command's usage screen to w: UsageLine, Long, the
// flags of fs, if it has any, one line each, and where the reference is.
func (c *Command) PrintHelp(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: %s\n\n%s", c.UsageLine, c.Long)
	if fs != nil {
		var lines []string
		width := 0
		fs.VisitAll(func(f *flag.Flag) {
			arg, usage := flag.UnquoteUsage(f)
			name := "-" + f.Name
			if arg != "" {
				name += " " + arg
			}
			width = max(width, len(name))
			lines = append(lines, name, usage)
		})
		if len(lines) > 0 {
			fmt.Fprint(w, "\nFlags:\n")
			for i := 0; i < len(lines); i += 2 {
				fmt.Fprintf(w, "  %-*s  %s\n", width, lines[i], lines[i+1])
			}
		}
	}
	if c.Reference != "" {
		fmt.Fprintf(w, "\nThe full reference is %s in the rpcid repository.\n", c.Reference)
	}
}

// NewFlags returns a flag set for the command: usage errors go to stderr
// with the usage line.
func (c *Command) NewFlags(stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("rpcid "+c.Name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s\n\"rpcid %s -h\" prints the full usage.\n", strings.TrimSpace(c.UsageLine), c.Name)
	}
	return fs
}

// ParseFlags parses args with fs. It returns the exit status to use and
// false when the command should stop: 0 after -h (which prints the full
// usage to stdout), 2 after a bad flag (reported on stderr).
func (c *Command) ParseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (int, bool) {
	usage := fs.Usage
	fs.Usage = func() {} // printed below: the usage line after an error, the full usage after -h
	defer func() { fs.Usage = usage }()
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			c.PrintHelp(stdout, fs)
			return 0, false
		}
		usage()
		return 2, false
	}
	return 0, true
}
