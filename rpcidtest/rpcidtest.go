// Package rpcidtest lets a JSON-RPC SDK check its own request-id matching
// against the rpcid rule, in its own CI.
//
// An SDK matches a response to the request it answers by id. Give this
// package the SDK's matching function, which takes the raw JSON of the id a
// request was sent with and the raw JSON of the id a response came back
// with:
//
//	func TestIDMatching(t *testing.T) {
//		rpcidtest.CheckMatcher(t, mySDK.IDsMatch)
//	}
//
//	func FuzzIDMatching(f *testing.F) {
//		rpcidtest.FuzzMatcher(f, mySDK.IDsMatch)
//	}
//
// CheckMatcher runs the conformance vectors of rpcidtest/vectors.json
// (embedded here; schema in testdata/VECTORS.md) and reports every
// disagreement with the rule clause that decides it. FuzzMatcher drives the
// same function from go test -fuzz with generated id pairs and fails on any
// disagreement with rpcid.Equal.
//
// A matcher that is strict on purpose (comparing type and value, which
// JSON-RPC 2.0 allows) misses what the rule matches, and CheckMatcher reports
// each miss. To check only that it never delivers a response to the wrong
// request, test the Disagreements whose Got is true and Want false (see the
// example). Added vectors are a minor version of the vectors (see Version):
// a new rpcid release may report disagreements that an older one did not.
//
// The package depends only on the standard library and rpcid.
package rpcidtest

import (
	_ "embed" // for the vectors file
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/rpcid/rpcid"
)

// vectorsJSON is the conformance vectors file, rpcidtest/vectors.json: the
// one copy in the module, which the root package's tests, the conformance
// normalizers and rpcid vectors read too.
//
//go:embed vectors.json
var vectorsJSON []byte

// VectorsJSON returns a copy of the conformance vectors file,
// rpcidtest/vectors.json, as UTF-8 JSON text. Its schema
// is described in testdata/VECTORS.md at the module root.
func VectorsJSON() []byte {
	return append([]byte(nil), vectorsJSON...)
}

// Type says what a Vector checks.
type Type string

// The types of Vector.
const (
	// Decode vectors give one raw id and how it decodes.
	Decode Type = "decode"
	// Pair vectors give two raw ids and whether they are equal.
	Pair Type = "pair"
)

// A Vector is one conformance case from rpcidtest/vectors.json.
//
// All raw ids are the exact bytes that appear as the value of an "id"
// member, surrounding whitespace included; some are deliberately invalid
// (not JSON, or not valid UTF-8).
type Vector struct {
	// Type is Decode or Pair; it says which of the fields below are set.
	Type Type
	// Name is unique among the vectors of its Type.
	Name string
	// Clause is the rule clause that decides the case: "grammar" (one
	// JSON value with JSON whitespace only) or "1" to "7" as numbered in the
	// rpcid package documentation.
	Clause string
	// Reason explains the expected outcome, starting with "grammar:" or
	// "clause N:".
	Reason string

	// Raw is the id of a Decode vector.
	Raw []byte
	// Valid reports whether Raw is an id (Decode).
	Valid bool
	// Error is the error class when Valid is false: "syntax",
	// "invalid-utf8", "type" or "range" (Decode), matching rpcid.ErrSyntax,
	// rpcid.ErrInvalidUTF8, rpcid.ErrType and rpcid.ErrRange.
	Error string
	// Kind is "null", "int", "number" or "string" when Valid (Decode), as
	// rpcid.Kind.String spells it.
	Kind string
	// Canonical is the JSON text rpcid.ID.AppendJSON writes for Raw
	// (Decode, when Valid).
	Canonical string
	// Key is the JSON spelling of the canonical member of Raw's
	// equivalence class, as rpcid.Key.String writes it (Decode, when
	// Valid). Two valid ids are equal exactly when their keys are.
	Key string

	// A and B are the two ids of a Pair vector.
	A, B []byte
	// Equal reports whether A and B are equal under the rule (Pair). It is
	// false when either is not a valid id.
	Equal bool
}

type fileVector struct {
	Name      string  `json:"name"`
	Clause    string  `json:"clause"`
	Reason    string  `json:"reason"`
	Raw       *string `json:"raw"`
	RawHex    *string `json:"raw_hex"`
	Valid     bool    `json:"valid"`
	Error     string  `json:"error"`
	Kind      string  `json:"kind"`
	Canonical string  `json:"canonical"`
	Key       string  `json:"key"`
	A         *string `json:"a"`
	AHex      *string `json:"a_hex"`
	B         *string `json:"b"`
	BHex      *string `json:"b_hex"`
	Equal     bool    `json:"equal"`
}

type file struct {
	Version string       `json:"version"`
	Decode  []fileVector `json:"decode"`
	Pairs   []fileVector `json:"pairs"`
}

func raw(text, hexText *string) ([]byte, error) {
	switch {
	case text != nil && hexText == nil:
		return []byte(*text), nil
	case text == nil && hexText != nil:
		return hex.DecodeString(*hexText)
	}
	return nil, errors.New("exactly one of the text and hex forms must be present")
}

func load() (file, []Vector, error) {
	var f file
	if err := json.Unmarshal(vectorsJSON, &f); err != nil {
		return f, nil, err
	}
	vs := make([]Vector, 0, len(f.Decode)+len(f.Pairs))
	for _, d := range f.Decode {
		r, err := raw(d.Raw, d.RawHex)
		if err != nil {
			return f, nil, fmt.Errorf("decode vector %q: %v", d.Name, err)
		}
		vs = append(vs, Vector{Type: Decode, Name: d.Name, Clause: d.Clause, Reason: d.Reason,
			Raw: r, Valid: d.Valid, Error: d.Error, Kind: d.Kind, Canonical: d.Canonical, Key: d.Key})
	}
	for _, p := range f.Pairs {
		a, err := raw(p.A, p.AHex)
		if err != nil {
			return f, nil, fmt.Errorf("pair vector %q a: %v", p.Name, err)
		}
		b, err := raw(p.B, p.BHex)
		if err != nil {
			return f, nil, fmt.Errorf("pair vector %q b: %v", p.Name, err)
		}
		vs = append(vs, Vector{Type: Pair, Name: p.Name, Clause: p.Clause, Reason: p.Reason, A: a, B: b, Equal: p.Equal})
	}
	return f, vs, nil
}

// Vectors returns the conformance vectors: all Decode vectors in file
// order, then all Pair vectors. Each call returns a new slice the caller
// may modify.
func Vectors() []Vector {
	_, vs, err := load()
	if err != nil {
		panic("rpcidtest: embedded vectors.json: " + err.Error()) // a build of this package is broken
	}
	return vs
}

// Version returns the version of the conformance vectors, such as "1.0.0".
// A change to any vector's expected outcome is a new major version.
func Version() string {
	f, _, err := load()
	if err != nil {
		panic("rpcidtest: embedded vectors.json: " + err.Error())
	}
	return f.Version
}

// A Disagreement is one case where a matching function's answer differs
// from the rule.
type Disagreement struct {
	// Vector names the vector the case comes from, such as
	// "pair/zero-vs-empty" or "decode/int-one-point-zero (canonical)".
	Vector string
	// Sent and Received are the raw ids given to the matching function.
	Sent, Received []byte
	// Got is the matching function's answer; Want is the rule's.
	Got, Want bool
	// Reason names the rule clause that decides the case.
	Reason string
}

// String describes d on one line, such as
//
//	pair/one-vs-plus: match(sent `1`, received `"+1"`) = true, want false: clause 5: ...
//
// Raw ids are written between backquotes exactly as they are, as
// (empty: 0 bytes) for empty input, and, where they hold characters that do
// not print (controls, tabs, line ends, non-ASCII spaces, invalid bytes) or
// a backquote, with each such character as <U+XXXX>, each invalid byte as
// <0xXX>, and the bytes in hexadecimal after them:
//
//	`"01"`
//	`"<U+00A0>1"` (bytes 22 c2 a0 31 22)
func (d Disagreement) String() string {
	return fmt.Sprintf("%s: match(sent %s, received %s) = %v, want %v: %s",
		d.Vector, quoteRaw(d.Sent), quoteRaw(d.Received), d.Got, d.Want, d.Reason)
}

// quoteRaw writes a raw id for messages so that it cannot be misread: the
// bytes between backquotes, exactly as they are (so "\u00a01" is the JSON
// escape, six bytes, and never a rendering of other bytes). Empty input is
// written as (empty: 0 bytes). When the bytes are not all printable UTF-8
// (controls, tabs, line ends, non-ASCII spaces, invalid bytes) or hold a
// backquote, each such rune is shown as <U+XXXX> and each invalid byte as
// <0xXX>, and the bytes follow in hexadecimal, which is exact:
//
//	`"01"`
//	` 1`
//	`"<U+00A0>1"` (bytes 22 c2 a0 31 22)
func quoteRaw(b []byte) string {
	if len(b) == 0 {
		return "(empty: 0 bytes)"
	}
	plain := func(r rune) bool { return r != '`' && r != utf8.RuneError && unicode.IsPrint(r) }
	s := string(b)
	if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return !plain(r) }) {
		return "`" + s + "`"
	}
	var sb strings.Builder
	sb.WriteByte('`')
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&sb, "<0x%02x>", b[i])
		case plain(r):
			sb.Write(b[i : i+n])
		default:
			fmt.Fprintf(&sb, "<U+%04X>", r)
		}
		i += n
	}
	sb.WriteString("` (bytes ")
	const maxHex = 32
	for i, c := range b {
		if i == maxHex {
			fmt.Fprintf(&sb, " ...; %d bytes in all", len(b))
			break
		}
		if i > 0 {
			sb.WriteByte(' ')
		}
		fmt.Fprintf(&sb, "%02x", c)
	}
	sb.WriteByte(')')
	return sb.String()
}

// sendable reports whether raw can be the id of a request that awaits a
// response: a valid id that is not null.
func sendable(raw []byte) bool {
	id, err := rpcid.Parse(raw)
	return err == nil && id.Kind() != rpcid.KindNull
}

// Disagreements runs match on every case derived from the conformance
// vectors and returns those where it disagrees with the rule. The cases are:
//   - every Pair vector in both directions, skipping the direction whose
//     sent id is null or invalid (no request is pending with such an id);
//   - every valid, non-null Decode vector matched with itself, with its
//     Canonical spelling and with its Key spelling (all must match);
//   - every invalid Decode vector received for requests sent with ids a
//     lax parser could confuse it with (none may match).
//
// match is called with fresh slices it may keep or modify. A panic in
// match is not recovered.
func Disagreements(match func(sent, received []byte) bool) []Disagreement {
	var out []Disagreement
	try := func(name string, sent, received []byte, want bool, reason string) {
		got := match(append([]byte(nil), sent...), append([]byte(nil), received...))
		if got != want {
			out = append(out, Disagreement{Vector: name, Sent: sent, Received: received, Got: got, Want: want, Reason: reason})
		}
	}
	lure := [][]byte{[]byte(`0`), []byte(`1`), []byte(`10`), []byte(`-1`), []byte(`"1"`), []byte(`"a"`), []byte(`""`), []byte(`1.5`)}
	for _, v := range Vectors() {
		switch {
		case v.Type == Pair:
			if sendable(v.A) {
				try("pair/"+v.Name, v.A, v.B, v.Equal, v.Reason)
			}
			if sendable(v.B) {
				try("pair/"+v.Name+" (reversed)", v.B, v.A, v.Equal, v.Reason)
			}
		case v.Valid && v.Kind != "null":
			try("decode/"+v.Name+" (itself)", v.Raw, v.Raw, true, v.Reason+"; an id matches itself")
			try("decode/"+v.Name+" (canonical)", v.Raw, []byte(v.Canonical), true, v.Reason+"; written back as "+v.Canonical)
			try("decode/"+v.Name+" (key)", v.Raw, []byte(v.Key), true, v.Reason+"; "+v.Key+" is the canonical member of its class")
		case !v.Valid:
			for _, sent := range lure {
				try("decode/"+v.Name+" (invalid)", sent, v.Raw, false, v.Reason+"; an invalid id matches no request")
			}
		}
	}
	return out
}

// CheckMatcher runs the conformance vectors through match, an SDK's
// function that reports whether a response whose id is the raw JSON
// received belongs to the request sent with the raw JSON id sent, and
// reports each disagreement with the rule through t.Errorf, naming the
// vector and the rule clause. It checks the cases listed at Disagreements;
// it calls only t.Helper, t.Errorf and t.Logf.
func CheckMatcher(t testing.TB, match func(sent, received []byte) bool) {
	t.Helper()
	ds := Disagreements(match)
	for _, d := range ds {
		t.Errorf("rpcidtest: %v", d)
	}
	if len(ds) > 0 {
		t.Logf("rpcidtest: %d disagreements with the rpcid rule (vectors %s)", len(ds), Version())
	}
}

// FuzzMatcher is a native fuzz target body for an SDK's id matching
// function (see CheckMatcher). Call it from a FuzzXxx function and run
// go test -fuzz=FuzzXxx. It seeds the corpus from every vector and from
// integers at the edges where parsers disagree, and for each generated
// (sent, received) pair it also tries collision-prone variants of the sent
// id: its canonical and key spellings, the integer as a string, and
// near-misses such as "01", "+1", " 1", "1.0", "1_0" and fullwidth digits.
// It fails when match disagrees with rpcid.Equal (false when received is not
// a valid id); pairs whose sent id is null or invalid are skipped.
func FuzzMatcher(f *testing.F, match func(sent, received []byte) bool) {
	f.Helper()
	for _, s := range seeds() {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, sent, received []byte) {
		for _, d := range fuzzDisagreements(match, sent, received) {
			t.Errorf("rpcidtest: %v", d)
		}
	})
}

// seeds returns the seed pairs of FuzzMatcher.
func seeds() [][2][]byte {
	var out [][2][]byte
	for _, v := range Vectors() {
		if v.Type == Pair {
			out = append(out, [2][]byte{v.A, v.B}, [2][]byte{v.B, v.A})
		} else if v.Valid {
			out = append(out, [2][]byte{v.Raw, []byte(v.Key)})
		} else {
			out = append(out, [2][]byte{[]byte(`1`), v.Raw})
		}
	}
	for _, n := range edgeInts {
		s := strconv.FormatInt(n, 10)
		out = append(out, [2][]byte{[]byte(s), []byte(`"` + s + `"`)}, [2][]byte{[]byte(`"` + s + `"`), []byte(s + ".0")})
	}
	return out
}

// edgeInts are integers where loose parsers go wrong: zero, the float64
// exact-integer limit and the int64 bounds.
var edgeInts = []int64{0, 1, -1, 10, 1<<53 - 1, 1 << 53, 1<<53 + 1, 1<<63 - 1, 1<<63 - 2, -1 << 63}

// fuzzDisagreements checks match on (sent, received) and on (sent, v) for
// each collision-prone variant v of sent.
func fuzzDisagreements(match func(sent, received []byte) bool, sent, received []byte) []Disagreement {
	sid, err := rpcid.Parse(sent)
	if err != nil || sid.Kind() == rpcid.KindNull {
		return nil
	}
	var out []Disagreement
	for _, r := range append([][]byte{received}, variants(sid)...) {
		want, reason := rule(sid, r)
		got := match(append([]byte(nil), sent...), append([]byte(nil), r...))
		if got != want {
			out = append(out, Disagreement{Vector: "fuzz", Sent: sent, Received: r, Got: got, Want: want, Reason: reason})
		}
	}
	return out
}

// rule returns the rule's verdict on a request sent with id sent and a
// response received with the raw id received, and the clause deciding it.
func rule(sent rpcid.ID, received []byte) (bool, string) {
	rid, err := rpcid.Parse(received)
	if err != nil {
		return false, "grammar: the received id is not a valid id (" + err.Error() + "), so it matches no request"
	}
	eq := rpcid.Equal(sent, rid)
	a, b := sent.Kind(), rid.Kind()
	if a > b {
		a, b = b, a
	}
	var reason string
	switch {
	case a == rpcid.KindNull || b == rpcid.KindNull:
		reason = "clause 1: null is equal only to null"
	case a == rpcid.KindInt && b == rpcid.KindInt:
		reason = "clause 2: integers are equal by exact value whatever the spelling (1.0 is 1), never through float64 (2^53+1 is not 2^53)"
	case a == rpcid.KindInt && b == rpcid.KindNumber:
		reason = "clause 3: a fractional number or an integer outside int64 never equals an integer id"
	case a == rpcid.KindNumber && b == rpcid.KindNumber:
		reason = "clause 3: numbers are compared by exact value (1.5 = 15e-1 = 1.50), never through float64"
	case a == rpcid.KindInt && b == rpcid.KindString:
		reason = "clause 5: a string equals an integer only when it is the integer's canonical decimal spelling 0|-?[1-9][0-9]* in ASCII, within int64"
	case a == rpcid.KindNumber && b == rpcid.KindString:
		reason = "clause 5: a string never equals a fractional or out-of-int64 number"
	default:
		reason = "clause 6: strings are equal when their decoded contents are identical bytes (no normalization, no case folding)"
	}
	return eq, fmt.Sprintf("%s (keys: %s %s, %s %s)", reason, sent, keyNote(sent), rid, keyNote(rid))
}

// keyNote describes id's canonical key for a reason, as "has key K", or "is
// its own key" when the key is spelled as the id is, so that a message never
// reads as a tautology such as (1 is 1).
func keyNote(id rpcid.ID) string {
	if k := id.Key().String(); k != id.String() {
		return "has key " + k
	}
	return "is its own key"
}

// variants returns raw ids that collide with id under some loose parser:
// other spellings of it (equal under the rule) and near-misses (not equal).
func variants(id rpcid.ID) [][]byte {
	var vs []string
	vs = append(vs, id.String(), id.Key().String())
	switch id.Kind() {
	case rpcid.KindInt, rpcid.KindString:
		digits := id.Key().String()
		if strings.HasPrefix(digits, `"`) {
			break // a string that spells no integer
		}
		sign, abs := "", digits
		if strings.HasPrefix(digits, "-") {
			sign, abs = "-", digits[1:]
		}
		vs = append(vs, digits, digits+".0", digits+"e0", digits+"0e-1", `"`+digits+`"`,
			quote("0"+digits), quote("+"+digits), quote(" "+digits), quote(digits+" "), quote(digits+".0"),
			quote(digits+"e0"), quote(sign+"0"+abs), quote(mapDigits(digits, '０')), quote(mapDigits(digits, '٠')))
		if len(abs) > 1 {
			vs = append(vs, quote(sign+abs[:1]+"_"+abs[1:]))
		}
		if digits == "0" {
			vs = append(vs, `""`, `" "`, `"-0"`, `-0`, `null`)
		}
	case rpcid.KindNumber:
		// A zero added to the fraction (equal), and the text as a string
		// (not equal).
		text := id.String()
		mant, exp := text, ""
		if i := strings.IndexAny(text, "eE"); i >= 0 {
			mant, exp = text[:i], text[i:]
		}
		if strings.Contains(mant, ".") {
			vs = append(vs, mant+"0"+exp)
		} else {
			vs = append(vs, mant+".0"+exp)
		}
		vs = append(vs, quote(text))
	}
	if s, ok := id.StringValue(); ok {
		// The same contents with every ASCII character escaped (equal).
		var b strings.Builder
		b.WriteByte('"')
		for _, r := range s {
			if r < 0x80 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				b.WriteRune(r)
			}
		}
		b.WriteByte('"')
		vs = append(vs, b.String())
	}
	out := make([][]byte, len(vs))
	for i, v := range vs {
		out[i] = []byte(v)
	}
	return out
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// mapDigits replaces the ASCII digits of s with those of the script whose
// zero is zero.
func mapDigits(s string, zero rune) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return zero + r - '0'
		}
		return r
	}, s)
}
