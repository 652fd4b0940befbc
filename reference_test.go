package rpcid

// A slow, obviously-correct reference implementation of the rule (the
// net/netip parseIPSlow idea). It shares no code with the package: the JSON
// grammar is a regular expression, number values are exact decimal
// (sign, digits, exponent) triples computed with math/big, and strings are
// decoded by encoding/json after unicode/utf8 and an escape scan have ruled
// out the inputs encoding/json would silently repair. Fuzz targets, rapid
// properties and the conformance vectors all compare the package with it.
//
// Speed is not a goal; being easy to check against the rule text is.

import (
	"encoding/json"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// refMaxDepth is encoding/json's nesting limit for arrays and objects.
const refMaxDepth = 10000

// Reference error classes: the names used in rpcidtest/vectors.json.
const (
	refSyntax      = "syntax"       // not one JSON value (RFC 8259), or a second value
	refInvalidUTF8 = "invalid-utf8" // a string with invalid UTF-8 or a lone surrogate escape
	refType        = "type"         // valid JSON that cannot be an id: object, array, true, false
	refRange       = "range"        // a non-zero number d × 10^e in lowest terms with |e| >= 10^18
)

// refNum is an exact non-zero decimal number: (-1)^Neg * Digits * 10^Exp,
// Digits without leading or trailing zeros, Exp a decimal big integer.
// Two numbers are equal exactly when their refNum values are ==.
type refNum struct {
	Neg    bool
	Digits string
	Exp    string
}

// refID is the reference's idea of a parsed id.
type refID struct {
	Kind string // "absent", "null", "int", "number", "string" (Kind.String values)
	Int  int64  // Kind "int"
	Str  string // Kind "string": decoded contents
	Num  refNum // Kind "number": exact value
	Text string // Kind "number": the number token, verbatim
}

// refResult is the outcome of refParse. When the input is rejected, Err is
// the class the package must report. Inputs with more than one fault (say,
// an invalid UTF-8 byte in a string that is never closed) may be reported
// by their first fault instead: Also lists the other classes accepted.
type refResult struct {
	ID   refID
	Err  string
	Also []string
}

const (
	refWS     = `[ \t\n\r]*`
	refNumber = `-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`
	// Any character but '"', '\' and the controls U+0000..U+001F, or an
	// escape. Invalid UTF-8 bytes match [^...] as U+FFFD in Go's regexp:
	// this is the grammar only; UTF-8 validity is checked separately.
	refStringRE = `"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"`
)

var (
	refScalarRE    = regexp.MustCompile(`^` + refWS + `(null|true|false|` + refNumber + `|` + refStringRE + `)` + refWS + `$`)
	refNumberRE    = regexp.MustCompile(`^(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$`)
	refEscapeRE    = regexp.MustCompile(`\\(?:["\\/bfnrt]|u([0-9a-fA-F]{4}))`)
	refCanonicalRE = regexp.MustCompile(`^(?:0|-?[1-9][0-9]*)$`)
	refSurrogateRE = regexp.MustCompile(`\\u[dD][89a-fA-F][0-9a-fA-F]{2}`)
	refMinInt64    = big.NewInt(-1 << 63)
	refMaxInt64    = big.NewInt(1<<63 - 1)
	refMaxExp      = big.NewInt(1_000_000_000_000_000_000)
)

// refParse decodes one wire id by the rule, slowly.
func refParse(data []byte) refResult {
	m := refScalarRE.FindSubmatch(data)
	if m == nil {
		return refReject(data)
	}
	tok := string(m[1])
	switch {
	case tok == "null":
		return refResult{ID: refID{Kind: "null"}}
	case tok == "true" || tok == "false":
		return refResult{Err: refType}
	case tok[0] == '"':
		s, ok := refDecodeString(tok)
		if !ok {
			return refResult{Err: refInvalidUTF8}
		}
		return refResult{ID: refID{Kind: "string", Str: s}}
	default:
		return refParseNumber(tok)
	}
}

// refReject classifies input that is not a JSON scalar id.
func refReject(data []byte) refResult {
	trimmed := strings.TrimLeft(string(data), " \t\n\r")
	composite := trimmed != "" && (trimmed[0] == '[' || trimmed[0] == '{')
	if composite && json.Valid(data) {
		// An object or array. encoding/json accepts invalid UTF-8 and lone
		// surrogates inside them; the package may notice those first.
		r := refResult{Err: refType}
		if !utf8.Valid(data) || refSurrogateRE.Match(data) {
			r.Also = []string{refInvalidUTF8}
		}
		return r
	}
	if composite && strings.Count(trimmed, "[")+strings.Count(trimmed, "{") > refMaxDepth {
		// encoding/json refuses nesting deeper than 10000 (RFC 8259 s9
		// allows such limits); the package has none. The reference cannot
		// tell such an input's validity: it accepts either verdict.
		return refResult{Err: refType, Also: []string{refSyntax, refInvalidUTF8}}
	}
	r := refResult{Err: refSyntax}
	// A scanner that stops at the first fault may report one of these
	// before it sees the syntax error.
	if !utf8.Valid(data) || refSurrogateRE.Match(data) {
		r.Also = append(r.Also, refInvalidUTF8)
	}
	return r
}

// refDecodeString decodes a JSON string token (quotes included). It reports
// false for invalid UTF-8 and for \u escapes of unpaired surrogates, the two
// things encoding/json would turn into U+FFFD instead of rejecting.
func refDecodeString(tok string) (string, bool) {
	if !utf8.ValidString(tok) {
		return "", false
	}
	// Escapes are matched leftmost-first, so `\\u0031` is an escaped
	// backslash followed by the text "u0031", as in JSON.
	esc := refEscapeRE.FindAllStringSubmatchIndex(tok, -1)
	for i, e := range esc {
		if e[2] < 0 {
			continue // not a \u escape
		}
		u, _ := strconv.ParseUint(tok[e[2]:e[3]], 16, 16)
		switch {
		case 0xD800 <= u && u <= 0xDBFF: // high: the next escape must be a low surrogate right after it
			if i+1 >= len(esc) || esc[i+1][0] != e[1] || esc[i+1][2] < 0 {
				return "", false
			}
			v, _ := strconv.ParseUint(tok[esc[i+1][2]:esc[i+1][3]], 16, 16)
			if v < 0xDC00 || v > 0xDFFF {
				return "", false
			}
		case 0xDC00 <= u && u <= 0xDFFF: // low: the previous escape must be a high surrogate right before it
			if i == 0 || esc[i-1][1] != e[0] || esc[i-1][2] < 0 {
				return "", false
			}
			v, _ := strconv.ParseUint(tok[esc[i-1][2]:esc[i-1][3]], 16, 16)
			if v < 0xD800 || v > 0xDBFF {
				return "", false
			}
		}
	}
	var s string
	if err := json.Unmarshal([]byte(tok), &s); err != nil {
		panic("reference: encoding/json rejected a string token the grammar accepted: " + strconv.Quote(tok))
	}
	return s, true
}

// refParseNumber classifies a number token that matched the JSON grammar.
func refParseNumber(tok string) refResult {
	m := refNumberRE.FindStringSubmatch(tok)
	neg, intPart, frac, expText := m[1] == "-", m[2], m[3], m[4]
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		// Zero, whatever its sign and exponent (0e99999999999999999999 too).
		return refResult{ID: refID{Kind: "int", Int: 0}}
	}
	exp := new(big.Int)
	if expText != "" {
		exp.SetString(strings.TrimPrefix(expText, "+"), 10)
	}
	exp.Sub(exp, big.NewInt(int64(len(frac))))
	trimmed := strings.TrimRight(digits, "0")
	exp.Add(exp, big.NewInt(int64(len(digits)-len(trimmed))))
	digits = trimmed
	// The value is digits × 10^exp in lowest terms; |exp| >= 10^18 is
	// refused whatever the spelling.
	if new(big.Int).Abs(exp).Cmp(refMaxExp) >= 0 {
		return refResult{Err: refRange}
	}

	// Integral and at most 19 digits long: it may fit in int64.
	if exp.Sign() >= 0 && exp.Cmp(big.NewInt(19)) <= 0 && len(digits)+int(exp.Int64()) <= 19 {
		v, _ := new(big.Int).SetString(digits, 10)
		v.Mul(v, new(big.Int).Exp(big.NewInt(10), exp, nil))
		if neg {
			v.Neg(v)
		}
		if v.Cmp(refMinInt64) >= 0 && v.Cmp(refMaxInt64) <= 0 {
			return refResult{ID: refID{Kind: "int", Int: v.Int64()}}
		}
	}
	return refResult{ID: refID{Kind: "number", Num: refNum{Neg: neg, Digits: digits, Exp: exp.String()}, Text: tok}}
}

// refCanonicalInt reports the integer a string names under clause 5: its
// canonical decimal spelling 0|-?[1-9][0-9]* in ASCII, within int64.
func refCanonicalInt(s string) (int64, bool) {
	if !refCanonicalRE.MatchString(s) {
		return 0, false
	}
	v, _ := new(big.Int).SetString(s, 10)
	if v.Cmp(refMinInt64) < 0 || v.Cmp(refMaxInt64) > 0 {
		return 0, false
	}
	return v.Int64(), true
}

// refEqual is the rule's verdict, clause by clause.
func refEqual(a, b refID) bool {
	if a.Kind == "string" && b.Kind == "int" {
		a, b = b, a
	}
	switch {
	case a.Kind == "absent" || b.Kind == "absent": // clause 7: absent is only equal to absent
		return a.Kind == b.Kind
	case a.Kind == "null" || b.Kind == "null": // clause 1
		return a.Kind == b.Kind
	case a.Kind == "int" && b.Kind == "int": // clause 2
		return a.Int == b.Int
	case a.Kind == "int" && b.Kind == "string": // clause 5
		n, ok := refCanonicalInt(b.Str)
		return ok && n == a.Int
	case a.Kind == "number" && b.Kind == "number": // clause 3: exact value
		return a.Num == b.Num
	case a.Kind == "string" && b.Kind == "string": // clause 6: identical bytes
		return a.Str == b.Str
	default: // number vs int (disjoint values), number vs string (clause 5)
		return false
	}
}

// refKey is an independent canonical form: refKey(a) == refKey(b) exactly
// when refEqual(a, b). Its spelling is the reference's own, not Key.String.
func refKey(id refID) string {
	switch id.Kind {
	case "int":
		return "int:" + strconv.FormatInt(id.Int, 10)
	case "string":
		if n, ok := refCanonicalInt(id.Str); ok {
			return "int:" + strconv.FormatInt(n, 10)
		}
		return "string:" + id.Str
	case "number":
		sign := ""
		if id.Num.Neg {
			sign = "-"
		}
		return "number:" + sign + id.Num.Digits + "e" + id.Num.Exp
	default:
		return id.Kind
	}
}

// refFromString is the reference for the String constructor: like
// encoding/json.Marshal, every invalid UTF-8 byte becomes U+FFFD (a []rune
// conversion yields one U+FFFD per invalid byte).
func refFromString(s string) refID {
	return refID{Kind: "string", Str: string([]rune(s))}
}
