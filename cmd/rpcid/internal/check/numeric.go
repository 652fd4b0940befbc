package check

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/rpcid/rpcid"
)

// maxSafe is 2^53-1, the largest integer below which JavaScript numbers
// (IEEE 754 doubles) hold every integer exactly (RFC 8259 section 6).
const maxSafe = 1<<53 - 1

// numericWarnings warns about a numeric id beyond 2^53-1 in magnitude or
// with a fractional part, and reports whether it did. The reasons are
// those of the SDK survey and the peer results: the TypeScript SDK reads
// ids with JSON.parse, and its schema accepts the double only when it is a
// safe integer (zod 4's int()), whatever the spelling; JSON.parse and go-sdk
// read ids through float64, which rounds what it cannot hold (1e-400 to 0)
// and which go-sdk then converts to int64 (truncating a fraction,
// overflowing beyond int64); rmcp and the C# SDK read only integers within
// int64, spelled as integers; the Python SDK's ids are strict integers,
// which it keeps exactly, but a number spelled with a fraction or an
// exponent is a float to its JSON parser, which it refuses.
func (s *capture) numericWarnings(pos position, what string, id rpcid.ID, raw []byte, method string) bool {
	facts, ok := numberFactsOf(id, raw)
	if !ok {
		return false
	}
	f := &finding{ID: clone(raw), Number: facts}
	f.Method = method
	if !facts.Integer {
		f.short = fmt.Sprintf("%s id %s is not an integer", what, show(raw))
		msg := f.short + ": JSON-RPC 2.0 says ids SHOULD NOT have fractional parts and MCP allows only strings and integers; "
		// A fraction is spelled with "." or an exponent, which rmcp's
		// serde_json, C#'s GetInt64 and the Python SDK's strict integers
		// refuse, and sourcegraph/jsonrpc2's uint64 too.
		rejecters := "the Python, Rust (rmcp) and C# SDKs reject it"
		n, tsReads := jsSafeInteger(raw)
		// why: which explanation, without the numbers it names.
		switch {
		case tsReads:
			f.why = "float64 rounds it to a safe integer"
			// The double nearest to it is a safe integer (1e-400 is 0,
			// 2.0000000000000001 is 2): JSON.parse reads that, the
			// TypeScript SDK's schema accepts it and _onresponse looks it
			// up, and go-sdk's conversion to int64 keeps it.
			msg += "go-sdk and the TypeScript SDK read it as " + n + " (float64, through which both read it, rounds it to that integer), which can match a request with that id"
			f.short += ": go-sdk and the TypeScript SDK read it as " + n
		case facts.GoSDK == goSDKRefuses:
			msg += goSDKRefusal
			f.why = goSDKRefusal
		case facts.GoSDK == "overflow":
			msg += "go-sdk's conversion to int64 overflows"
			f.why = "overflow"
		case facts.GoSDK == truncDecimal(raw):
			f.why = "go-sdk truncates it"
			msg += "go-sdk truncates it to " + facts.GoSDK + ", which can match a request with that id"
			f.short += ": go-sdk truncates it to " + facts.GoSDK
		default:
			// Beyond 2^53 the double nearest to it is an integer, which
			// go-sdk's conversion keeps (9007199254740993.5 is
			// 9007199254740994).
			msg += "go-sdk reads it as " + facts.GoSDK + " (float64 rounds it to that integer), which can match a request with that id"
			f.short += ": go-sdk reads it as " + facts.GoSDK
			f.why = "go-sdk rounds it"
		}
		if !tsReads {
			// The double is not an integer, or beyond 2^53-1: zod 4's
			// int() refuses it.
			rejecters = "the TypeScript, Python, Rust (rmcp) and C# SDKs reject it"
		}
		msg += ", " + rejecters + ", and sourcegraph/jsonrpc2 closes the connection"
		f.why += "; " + rejecters
		s.report(pos, levelWarning, kindFractional, msg, f)
		return true
	}
	var sessions []string
	if !facts.Int64 {
		bound := "above 2^63-1"
		if raw[0] == '-' {
			bound = "below -2^63"
		}
		// Python's JSON parsers read an integer spelling as an exact int
		// and any other spelling as a float, which the Python SDK's
		// strict integer ids refuse (peer results: 1.0, 1e0).
		sdks := "rmcp and the C# SDK reject it, and the Python SDK keeps it exactly"
		if !isPlainInt(raw) {
			sdks = "and rmcp, the C# SDK and the Python SDK reject it (Python reads this spelling as a float)"
		}
		gosdk := "go-sdk's conversion to int64 overflows"
		if facts.GoSDK == goSDKRefuses {
			gosdk = goSDKRefusal
		}
		sessions = append(sessions, fmt.Sprintf("%s id %s is beyond int64 (%s): %s, %s", what, show(raw), bound, gosdk, sdks))
		f.short = fmt.Sprintf("%s id %s is beyond int64", what, show(raw))
		f.why = gosdk + ", " + sdks
		if facts.Float64Exact {
			sessions = append(sessions, "float64 holds it exactly")
			f.short += ", and float64 holds it exactly"
		} else {
			readers := "JavaScript's JSON.parse reads"
			if !isPlainInt(raw) {
				readers = "JavaScript's JSON.parse and Python read"
			}
			sessions = append(sessions, "it is not exactly representable as a float64 ("+readers+" it as "+facts.Float64+")")
			f.short += ", and float64 rounds it"
			f.why += "; " + readers
		}
	} else {
		bound := "above 2^53-1"
		if raw[0] == '-' {
			bound = "below -(2^53-1)"
		}
		if facts.Float64Exact {
			sessions = append(sessions, fmt.Sprintf("%s id %s is %s, but float64 holds it exactly, so JavaScript and go-sdk read this id as it is", what, show(raw), bound))
			f.short = sessions[0]
			f.why = "exact"
		} else {
			readers := "JavaScript's JSON.parse and go-sdk read it as " + facts.Float64
			short := "JSON.parse and go-sdk read it as " + facts.Float64
			switch {
			case facts.GoSDK == "overflow":
				// float64 rounds it to 2^63, beyond int64.
				readers = "JavaScript's JSON.parse reads it as " + facts.Float64 + ", and go-sdk's conversion of that to int64 overflows"
				short = readers
			case facts.GoSDK != facts.Float64:
				// One double, in two spellings: JavaScript's shortest one
				// and its exact value, which go-sdk's int64 holds.
				readers = "JavaScript's JSON.parse and go-sdk read it as the same float64, " + facts.GoSDK + " (JavaScript spells it " + facts.Float64 + ")"
				short = readers
			}
			sessions = append(sessions, fmt.Sprintf("%s id %s is %s and not exactly representable as a float64: %s, which can match a different request",
				what, show(raw), bound, readers))
			f.short = fmt.Sprintf("%s id %s is %s: %s", what, show(raw), bound, short)
			f.why = "inexact"
		}
	}
	sessions = append(sessions, "the TypeScript SDK rejects ids beyond 2^53-1 (its schema accepts only safe integers)")
	s.report(pos, levelWarning, kindUnsafeInteger, strings.Join(sessions, "; "), f)
	return true
}

// jsSafeInteger returns the integer that JavaScript's JSON.parse reads the
// JSON number raw as, in JavaScript's spelling, when it is a safe integer
// (Number.isSafeInteger: at most 2^53-1 in magnitude; -0 reads as 0).
func jsSafeInteger(raw []byte) (string, bool) {
	f := jsValue(raw)
	if math.IsInf(f, 0) || f != math.Trunc(f) || math.Abs(f) > maxSafe {
		return "", false
	}
	return jsString(f), true
}

// truncDecimal returns the integer part of the JSON number raw, exactly, in
// decimal ("-2" for -2.75, "0" for -0.5 and 1e-400), or "" when raw has an
// exponent too large to tell.
func truncDecimal(raw []byte) string {
	d, e, ok := decimalParts(string(raw))
	if !ok {
		return ""
	}
	digits := int64(len(d)) + e // of the integer part
	if digits <= 0 {
		return "0"
	}
	if e >= 0 || digits > 400 {
		return "" // an integer, or too long to be go-sdk's int64
	}
	if raw[0] == '-' {
		return "-" + d[:digits]
	}
	return d[:digits]
}

// numberFacts are what a numeric id becomes in the SDKs that read ids
// through float64 or int64 ("-json": the number member).
type numberFacts struct {
	// Integer: the value is an integer. Int64: it is within int64.
	Integer bool `json:"integer"`
	Int64   bool `json:"int64"`
	// Float64Exact: a float64 holds the value exactly. Float64 is the
	// value JSON.parse gives, in JavaScript's spelling, when it does not.
	Float64Exact bool   `json:"float64Exact"`
	Float64      string `json:"float64,omitempty"`
	// Float64Value is the same double's exact value in decimal, when it is
	// an integer and JavaScript's spelling (Float64) rounds its digits:
	// one value, two spellings.
	Float64Value string `json:"float64Value,omitempty"`
	// GoSDK is what go-sdk's int64(float64) conversion makes of the id:
	// an integer in decimal, or "overflow"; or "refuse" (goSDKRefuses)
	// when float64 cannot hold the number at all, and go-sdk's decoder
	// refuses the message; omitted when it is exact.
	GoSDK string `json:"goSDK,omitempty"`
}

// goSDKRefuses is numberFacts.GoSDK for a number beyond float64's range
// (1e400): encoding/json will not read it into go-sdk's float64 id, so
// jsonrpc.DecodeMessage refuses the message, which ends the connection's
// read loop (conformance/RESULTS.md, go-sdk).
const goSDKRefuses = "refuse"

// goSDKRefusal is what the warnings say of such an id.
const goSDKRefusal = "go-sdk refuses the message (it reads ids as float64, which cannot hold this one), which ends its connection's read loop"

// numberFactsOf returns the facts of a numeric id worth a warning: an
// integer beyond 2^53-1 in magnitude or a fractional value.
func numberFactsOf(id rpcid.ID, raw []byte) (*numberFacts, bool) {
	var facts *numberFacts
	switch id.Kind() {
	case rpcid.KindInt:
		n, _ := id.Int64()
		if -maxSafe <= n && n <= maxSafe {
			return nil, false
		}
		facts = &numberFacts{Integer: true, Int64: true}
	case rpcid.KindNumber:
		text, _ := id.Number()
		facts = &numberFacts{Integer: numberIsIntegral(string(text))}
	default:
		return nil, false
	}
	f := jsValue(raw)
	facts.Float64Exact = float64Exact(raw, f)
	if !facts.Float64Exact {
		facts.Float64 = jsString(f)
		if !math.IsInf(f, 0) && f == math.Trunc(f) {
			if v := new(big.Float).SetFloat64(f).Text('f', 0); v != facts.Float64 {
				facts.Float64Value = v
			}
		}
	}
	if !facts.Float64Exact || !facts.Integer {
		switch t := math.Trunc(f); {
		case math.IsInf(f, 0):
			// encoding/json refuses a number beyond float64's range for a
			// float64 field, so go-sdk's DecodeMessage refuses the message.
			facts.GoSDK = goSDKRefuses
		case t >= -(1<<63) && t < 1<<63:
			facts.GoSDK = strconv.FormatInt(int64(t), 10)
		default:
			facts.GoSDK = "overflow"
		}
	}
	if !facts.Int64 && facts.Integer && facts.GoSDK != goSDKRefuses {
		facts.GoSDK = "overflow"
	}
	return facts, true
}

// float64Exact reports whether f, the double nearest to the JSON number
// raw, is exactly raw's value.
func float64Exact(raw []byte, f float64) bool {
	if math.IsInf(f, 0) {
		return false
	}
	d, e, ok := decimalParts(string(raw))
	if !ok {
		return false
	}
	if d == "" {
		return f == 0
	}
	// The value is d × 10^e. A double has at most 767 significant decimal
	// digits and is below 10^309; beyond that no comparison is needed. A
	// double is m × 2^k with m < 2^53, so for e > 0 the odd part of
	// d × 5^e × 2^e must be below 2^53, impossible for e > 22.
	if len(d) > 800 || e > 22 || int64(len(d))+e > 330 || e < -1100 {
		return false
	}
	want, ok := new(big.Rat).SetString(d + "e" + strconv.FormatInt(e, 10))
	if !ok {
		return false
	}
	got := new(big.Rat)
	got.SetFloat64(math.Abs(f))
	return got.Cmp(want) == 0
}

// decimalParts returns the significant digits d (no leading or trailing
// zeros, "" for zero) and exponent e of the JSON number text t, whose
// absolute value is d × 10^e.
func decimalParts(t string) (string, int64, bool) {
	t = strings.TrimPrefix(t, "-")
	mant, exp := t, int64(0)
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		mant = t[:i]
		x := t[i+1:]
		x = strings.TrimPrefix(x, "+")
		v, err := strconv.ParseInt(x, 10, 64)
		if err != nil || v > 1<<40 || v < -(1<<40) {
			return "", 0, false
		}
		exp = v
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	exp -= int64(len(frac))
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	trimmed = strings.TrimLeft(trimmed, "0")
	return trimmed, exp, true
}

// numberIsIntegral reports whether the JSON number t has an integer value.
func numberIsIntegral(t string) bool {
	t = strings.TrimPrefix(t, "-")
	mant, exp := t, int64(0)
	if i := strings.IndexAny(t, "eE"); i >= 0 {
		mant = t[:i]
		e, neg := t[i+1:], false
		if e != "" && (e[0] == '+' || e[0] == '-') {
			e, neg = e[1:], e[0] == '-'
		}
		e = strings.TrimLeft(e, "0")
		if len(e) > 18 { // rpcid refuses such exponents; decide by sign
			return !neg
		}
		exp, _ = strconv.ParseInt(e, 10, 64)
		if neg {
			exp = -exp
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	trimmed := strings.TrimRight(digits, "0")
	if strings.Trim(trimmed, "0") == "" {
		return true // zero
	}
	scale := exp - int64(len(frac)) + int64(len(digits)-len(trimmed))
	return scale >= 0
}

// jsKey is the key of a JavaScript Map for a number: SameValueZero treats
// -0 as +0.
func jsKey(f float64) uint64 {
	if f == 0 {
		f = 0
	}
	return math.Float64bits(f)
}

// isPlainInt reports whether a JSON number is written as an integer without
// fraction or exponent, and is not -0 (rmcp reads -0 as a float).
func isPlainInt(raw []byte) bool {
	s := string(raw)
	if s == "-0" {
		return false
	}
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
