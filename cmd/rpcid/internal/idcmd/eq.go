package idcmd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

func runEq(args []string, stdout, stderr io.Writer) int {
	const usage = "usage: rpcid eq A B    (each a JSON id: 1, \"1\", null; quote strings for the shell)\n\"rpcid eq -h\" prints the full usage.\n"
	args, code, ok := idArgs(Eq, args, 2, usage, stdout, stderr)
	if !ok {
		return code
	}
	a, err := parseArg("eq", args[0], stderr)
	if err != nil {
		return 2
	}
	b, err := parseArg("eq", args[1], stderr)
	if err != nil {
		return 2
	}
	equal, why := explainEqual(a, b)
	verdict := "not equal"
	if equal {
		verdict = "equal"
	}
	fmt.Fprintf(stdout, "%s: %s vs %s: %s\n", verdict, base.Printable(base.ShowString(strings.TrimSpace(args[0]))),
		base.Printable(base.ShowString(strings.TrimSpace(args[1]))), base.Printable(why))
	if equal {
		return 0
	}
	return 1
}

func runKey(args []string, stdout, stderr io.Writer) int {
	const usage = "usage: rpcid key ID    (a JSON id: 1, \"1\", null; quote strings for the shell)\n\"rpcid key -h\" prints the full usage.\n"
	args, code, ok := idArgs(Key, args, 1, usage, stdout, stderr)
	if !ok {
		return code
	}
	id, err := parseArg("key", args[0], stderr)
	if err != nil {
		return 2
	}
	fmt.Fprintf(stdout, "kind: %s\nkey:  %s\njson: %s\n", id.Kind(), base.Printable(id.Key().String()), base.Printable(id.String()))
	return 0
}

// idArgs checks the arguments of eq and key, which take ids and no flags
// (so that negative numbers such as -12 are ids): -h prints the usage, an
// optional leading "--" is dropped, and there must be n arguments.
func idArgs(cmd *base.Command, args []string, n int, usage string, stdout, stderr io.Writer) ([]string, int, bool) {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help") {
		cmd.PrintHelp(stdout, nil)
		return nil, 0, false
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) != n {
		fmt.Fprint(stderr, usage)
		return nil, 2, false
	}
	return args, 0, true
}

// parseArg parses a command-line id, explaining a failure on stderr. The
// argument is quoted as the user typed it (made safe for the terminal).
func parseArg(cmd, arg string, stderr io.Writer) (rpcid.ID, error) {
	id, err := rpcid.Parse([]byte(arg))
	if err != nil {
		shown := printableArg(showArg(arg))
		if strings.TrimSpace(arg) == "" {
			shown = strconv.Quote(arg) + " (empty)"
		}
		fmt.Fprintf(stderr, "rpcid %s: %s is not a JSON id: %s\n", cmd, shown, base.Printable(parseReason(err)))
		if what, ok := oddChar(arg); ok {
			fmt.Fprintf(stderr, "rpcid %s: the argument holds %s, which JSON does not allow outside a string\n", cmd, what)
		} else if looksLikeBareString(arg) {
			fmt.Fprintf(stderr, "rpcid %s: a string id is JSON text in quotes; in a shell write '%s'\n", cmd, base.Printable(base.ShowString(strconv.Quote(arg))))
		} else if errors.Is(err, rpcid.ErrType) {
			fmt.Fprintf(stderr, "rpcid %s: %s is %s; a JSON-RPC id is a string, a number or null\n", cmd, shown, base.JSONTypeName(bytes.TrimLeft([]byte(arg), " \t\r\n")))
		}
		return rpcid.ID{}, err
	}
	return id, nil
}

// showArg is showString without replacing invalid UTF-8, which printableArg
// shows byte by byte.
func showArg(s string) string {
	if len(s) > base.ShowMax+8 {
		return base.Truncate(s, base.ShowMax) + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}

// printableArg is printable for a command-line argument, quoted back as
// typed: an invalid UTF-8 byte is written \xHH, as a shell's $'...' would
// write it, not as U+FFFD.
func printableArg(s string) string {
	var b []byte
	for len(s) > 0 {
		i := 0
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				break
			}
			i += size
		}
		for _, r := range s[:i] {
			if r >= utf8.RuneSelf && unicode.IsSpace(r) {
				b = fmt.Appendf(b, `\u%04x`, r) // looks like U+0020
			} else {
				b = append(b, base.Printable(string(r))...)
			}
		}
		if i < len(s) {
			b = fmt.Appendf(b, `\x%02x`, s[i])
			i++
		}
		s = s[i:]
	}
	return string(b)
}

// oddChar describes the first byte or character of arg outside its
// quotation marks (if any) that JSON does not allow there and that a
// terminal does not show as it is: a byte that is not UTF-8, a format
// character such as U+FEFF, a control other than JSON whitespace, or a space
// other than U+0020.
func oddChar(arg string) (string, bool) {
	for i, r := range arg {
		switch {
		case r == '"':
			return "", false // within a string, Parse says what is wrong
		case r == utf8.RuneError && !strings.HasPrefix(arg[i:], "\uFFFD"):
			return fmt.Sprintf("the byte 0x%02x (not UTF-8)", arg[i]), true
		case r == ' ' || r == '\t' || r == '\r' || r == '\n':
		case base.UnsafeRune(r) || unicode.IsSpace(r):
			return fmt.Sprintf("%U (an invisible character or a space other than U+0020)", r), true
		}
	}
	return "", false
}

// looksLikeBareString reports whether a refused argument looks like the
// contents of a string id typed without its quotes (abc, req-1): not JSON
// of another type, not quoted, not a malformed number.
func looksLikeBareString(arg string) bool {
	t := strings.TrimSpace(arg)
	if t == "" || json.Valid([]byte(t)) || looksNumeric(t) {
		return false
	}
	switch t[0] {
	case '"', '[', '{', '\'':
		return false
	}
	return true
}

// parseReason is rpcid.Parse's error without its "rpcid: Parse INPUT: "
// prefix, which the message already says.
func parseReason(err error) string {
	msg := err.Error()
	var e *rpcid.Error
	if errors.As(err, &e) {
		msg = strings.TrimPrefix(msg, "rpcid: "+e.Func+" "+strconv.Quote(e.Input)+": ")
	}
	return msg
}

func looksNumeric(s string) bool {
	return s != "" && (s[0] == '-' || isDigit(s[0])) && !strings.ContainsAny(s, " \t")
}

// explainEqual decides Equal(a, b) and names the clause of the rule (as
// numbered in package rpcid's documentation) that decided it.
func explainEqual(a, b rpcid.ID) (bool, string) {
	equal := rpcid.Equal(a, b)
	ka, kb := a.Kind(), b.Kind()
	if kb < ka {
		a, b, ka, kb = b, a, kb, ka
	}
	// Now ka <= kb in the order absent, null, int, number, string.
	switch {
	case ka == rpcid.KindNull:
		return equal, "clause 1: null equals only null"
	case ka == rpcid.KindInt && kb == rpcid.KindInt:
		n, _ := a.Int64()
		m, _ := b.Int64()
		if equal {
			return true, fmt.Sprintf("clause 2: both are the integer %d (a number with an exact integer value within int64 is that integer, however it is spelled)", n)
		}
		return false, fmt.Sprintf("clause 2: they are the different integers %d and %d", n, m)
	case ka == rpcid.KindInt && kb == rpcid.KindNumber:
		return equal, fmt.Sprintf("clause 3: %s is not an integer within int64, so it equals only numbers of the same exact value, never an integer id", b)
	case ka == rpcid.KindNumber && kb == rpcid.KindNumber:
		if equal {
			return true, "clause 3: the two numbers have the same exact value"
		}
		return false, "clause 3: the two numbers have different exact values"
	case ka == rpcid.KindInt && kb == rpcid.KindString:
		n, _ := a.Int64()
		s, _ := b.StringValue()
		if equal {
			return true, fmt.Sprintf("clause 5: %s is the canonical decimal spelling of the integer %d", b, n)
		}
		return false, "clause 5: a string equals an integer only when it is the integer's canonical decimal spelling, and " +
			fmt.Sprintf("%s %s", b, whyNotSpelling(s, n))
	case ka == rpcid.KindNumber && kb == rpcid.KindString:
		return equal, fmt.Sprintf("clause 5: a string never equals a number that is not an integer within int64, such as %s", a)
	case ka == rpcid.KindString && kb == rpcid.KindString:
		if equal {
			return true, "clause 6: the strings' decoded contents are identical bytes"
		}
		return false, "clause 6: the strings' decoded contents differ (strings are compared byte for byte after escapes are resolved, with no normalization or case folding)"
	}
	return equal, "clause 7: an absent id equals only an absent id"
}

// whyNotSpelling says why string s is not the canonical decimal spelling of
// n (a phrase completing "... and "s" ...").
func whyNotSpelling(s string, n int64) string {
	switch {
	case s == "":
		return "is empty"
	case strings.TrimFunc(s, unicode.IsSpace) != s:
		return "has white space around it"
	case s[0] == '+':
		return "has a plus sign"
	case s == "-0":
		return "is minus zero (zero is spelled 0)"
	case len(s) > 1 && s[0] == '0' && isDigit(s[1]), len(s) > 2 && s[0] == '-' && s[1] == '0':
		return "has a leading zero"
	case strings.ContainsRune(s, '_'):
		return "has an underscore"
	case strings.HasPrefix(strings.ToLower(strings.TrimPrefix(s, "-")), "0x"),
		strings.HasPrefix(strings.ToLower(strings.TrimPrefix(s, "-")), "0o"),
		strings.HasPrefix(strings.ToLower(strings.TrimPrefix(s, "-")), "0b"):
		return "is written in another base"
	}
	hasNonASCIIDigit := false
	for _, r := range s {
		if r >= utf8.RuneSelf && unicode.IsDigit(r) {
			hasNonASCIIDigit = true
		}
	}
	if hasNonASCIIDigit {
		return "uses digits other than ASCII 0-9"
	}
	if m, err := strconv.ParseInt(s, 10, 64); err == nil && strconv.FormatInt(m, 10) == s {
		return fmt.Sprintf("is the canonical spelling of the integer %d, not %d", m, n)
	}
	if base.IsCanonicalDigits(s) {
		return "is beyond the int64 range"
	}
	if base.IsJSDecimal(strings.TrimPrefix(s, "-")) {
		return "has a fraction or an exponent"
	}
	return "is not a decimal integer"
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
