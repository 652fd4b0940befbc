package rpcid

// Native fuzz targets. Each compares the package with the reference
// implementation in reference_test.go. Run one at a time, for example
//
//	go test -run='^$' -fuzz='^FuzzParse$' -fuzztime=3m .
//
// Seeds come from the f.Add lists below, from every raw id in
// rpcidtest/vectors.json, and from the files under testdata/fuzz/FuzzXxx/.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// equateIDs makes go-cmp decide IDs with ==, which compares the form kept.
var equateIDs = cmpopts.EquateComparable(ID{}, Key{})

// vectorRaws returns every raw id in rpcidtest/vectors.json, for seeding.
func vectorRaws(tb testing.TB) [][]byte {
	vf := loadVectors(tb)
	var raws [][]byte
	for _, v := range vf.Decode {
		raw, err := rawBytes(v.Raw, v.RawHex)
		if err != nil {
			tb.Fatal(err)
		}
		raws = append(raws, raw)
	}
	return raws
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		// grammar: whitespace allowed and not allowed, second values
		" 1 ", "\t\"a\"\r\n", "\ufeff1", "\u00a01", "\v1", "1 2", "", " ",
		// clause 1 and literals
		"null", "nul", "true", "[null]", `{"id":1}`, "[[[[[[[[[[1]]]]]]]]]]",
		// clause 2: integers in many spellings, bounds both sides
		"0", "-0", "1.0", "1e3", "100e-2", "0.1e1", "9223372036854775807", "-9223372036854775808",
		"9.223372036854775807e18", "92233720368547758070e-1", "0e99999999999999999999",
		// clause 3: other numbers, huge exponents, ErrRange
		"1.5", "15e-1", "1.50", "1e400", "10e399", "9223372036854775808", "-9223372036854775809",
		"1e999999999999999999", "1e1000000000000000000", "1e0000000000000000000000018", "1e-400",
		// clause 4: escapes, surrogates, invalid UTF-8
		`"\u0031"`, `"\ud83d\ude00"`, `"\ud800"`, `"\udc00\ud800"`, "\"\xff\"", "\"\xed\xa0\x80\"", `"\u0000"`,
		// clause 5: canonical strings and near-misses
		`"0"`, `"-12"`, `"01"`, `"-0"`, `"+1"`, `" 1"`, `"1_0"`, `"0x1"`, `"１"`, `"١"`, `""`, `"9223372036854775808"`,
		// number grammar near-misses
		"01", "+1", "1.", ".5", "0x1", "1_0", "-", "1e", "1e+",
	} {
		f.Add([]byte(s))
	}
	for _, raw := range vectorRaws(f) {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data)
	})
}

// checkParse checks one input against the reference and the round-trip,
// stability, error and Pending properties.
func checkParse(t *testing.T, input []byte) {
	data := bytes.Clone(input) // Parse must not retain it; we overwrite it below
	id, err := Parse(data)
	ref := refParse(input)

	if err != nil {
		checkRejected(t, input, data, err, ref)
		return
	}
	if ref.Err != "" {
		t.Fatalf("Parse(%q) = %v, reference rejects it: %s", truncated(input), id, ref.Err)
	}
	if !json.Valid(input) {
		t.Fatalf("Parse(%q) = %v, but encoding/json says the input is not valid JSON", truncated(input), id)
	}
	if diff := cmp.Diff(ref.ID, refOf(id)); diff != "" {
		t.Fatalf("Parse(%q) disagrees with the reference (-reference +package):\n%s", truncated(input), diff)
	}

	out := id.AppendJSON(nil)
	for i := range data {
		data[i] = 'x'
	}
	if again := id.AppendJSON(nil); !bytes.Equal(out, again) {
		t.Fatalf("Parse(%q) kept the input buffer: AppendJSON was %q, after overwriting the input %q", truncated(input), truncated(out), truncated(again))
	}

	// Lossless round trip and stability.
	if !json.Valid(out) {
		t.Fatalf("Parse(%q).AppendJSON = %q, not valid JSON", truncated(input), truncated(out))
	}
	id2, err := Parse(out)
	if err != nil {
		t.Fatalf("Parse(AppendJSON(Parse(%q))) = Parse(%q): %v", truncated(input), truncated(out), err)
	}
	if diff := cmp.Diff(id, id2, equateIDs); diff != "" {
		t.Fatalf("round trip of %q through %q changed the ID (-first +second):\n%s", truncated(input), truncated(out), diff)
	}
	if out2 := id2.AppendJSON(nil); !bytes.Equal(out, out2) {
		t.Fatalf("AppendJSON not stable for %q: %q then %q", truncated(input), truncated(out), truncated(out2))
	}
	checkSpellings(t, "Parse("+strconv.Quote(string(input))+")", id)

	// UnmarshalJSON is Parse.
	var u ID
	if err := u.UnmarshalJSON(input); err != nil || u != id {
		t.Fatalf("UnmarshalJSON(%q) = %v, %v; Parse gave %v", truncated(input), u, err, id)
	}

	// The constructors build the same form.
	switch id.Kind() {
	case KindNull:
		checkSame(t, input, id, Null())
	case KindInt:
		n, _ := id.Int64()
		checkSame(t, input, id, Int(n))
	case KindString:
		s, _ := id.StringValue()
		checkSame(t, input, id, String(s))
	}

	// Key.String is the JSON spelling of a member of id's class.
	ks := id.Key().String()
	rep, err := Parse([]byte(ks))
	if err != nil || !Equal(id, rep) || rep.Key() != id.Key() {
		t.Fatalf("Parse(%q).Key().String() = %q, which parses to %v, %v: not Equal", truncated(input), ks, rep, err)
	}

	// Pending finds the id by its own bytes and by its written form.
	if id.Kind() != KindNull {
		var p Pending[int]
		if err := p.Add(id, 1); err != nil {
			t.Fatalf("Pending.Add(Parse(%q)) = %v", truncated(input), err)
		}
		if err := p.Add(id2, 2); !errors.Is(err, ErrDuplicate) || p.Len() != 1 {
			t.Fatalf("second Pending.Add(%v) = %v, Len %d; want ErrDuplicate, 1", id2, err, p.Len())
		}
		sent, v, ok := p.TakeJSON(input)
		if !ok || sent != id || v != 1 || p.Len() != 0 {
			t.Fatalf("Pending.TakeJSON(%q) after Add = %v, %d, %v, Len %d", truncated(input), sent, v, ok, p.Len())
		}
		if _, _, ok := p.TakeJSON(out); ok {
			t.Fatalf("Pending.TakeJSON(%q) found an id already taken", truncated(out))
		}
	}
}

func checkSame(t *testing.T, input []byte, parsed, built ID) {
	t.Helper()
	if diff := cmp.Diff(built, parsed, equateIDs); diff != "" {
		t.Fatalf("Parse(%q) and the constructor differ (-constructor +Parse):\n%s", truncated(input), diff)
	}
}

// checkRejected checks an error from Parse(data), where input is a copy of
// data as it was passed.
func checkRejected(t *testing.T, input, data []byte, err error, ref refResult) {
	if ref.Err == "" {
		t.Fatalf("Parse(%q) = %v, but the reference accepts it as %+v", truncated(input), err, ref.ID)
	}
	class := errorClass(err)
	if class != ref.Err && !contains(ref.Also, class) {
		t.Fatalf("Parse(%q) error %q is %s, reference says %s (or one of %v)", truncated(input), err, class, ref.Err, ref.Also)
	}
	// Where encoding/json accepts a scalar we reject, the reason must be on
	// the documented list: invalid UTF-8 and lone surrogates (which
	// encoding/json replaces with U+FFFD), and exponents refused with ErrRange.
	trimmed := strings.TrimLeft(string(input), " \t\r\n")
	composite := trimmed != "" && strings.ContainsRune("[{tf", rune(trimmed[0]))
	if json.Valid(input) && !composite && class != refInvalidUTF8 && class != refRange {
		t.Fatalf("Parse(%q) = %v (%s), but encoding/json accepts this scalar", truncated(input), err, class)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Parse(%q) error %T is not an *Error", truncated(input), err)
	}
	msg := err.Error()
	wantInput := input
	if len(wantInput) > 64 {
		wantInput = wantInput[:64]
	}
	if e.Func != "Parse" || e.Input != string(wantInput) || e.Offset < 0 || e.Offset > len(input) || !strings.HasPrefix(msg, "rpcid: ") {
		t.Fatalf("Parse(%q) error = %#v (%q): want Func Parse, Input the first 64 bytes, Offset within the input, message starting rpcid: ", truncated(input), e, msg)
	}
	for i := range data {
		data[i] = 'x'
	}
	if again := err.Error(); again != msg {
		t.Fatalf("Parse(%q) error kept the input buffer: %q became %q", truncated(input), msg, truncated(again))
	}
	// TakeJSON never matches an invalid id.
	var p Pending[int]
	for _, id := range []ID{Int(0), Int(1), String(""), String("a"), MustParse("1.5")} {
		_ = p.Add(id, 0)
	}
	if sent, _, ok := p.TakeJSON(input); ok {
		t.Fatalf("Pending.TakeJSON(%q) = %v, but Parse rejects it: %v", truncated(input), sent, err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func FuzzEqual(f *testing.F) {
	for _, pair := range [][2]string{
		// clause 5: the gateway case, and each SDK's lax match
		{`1`, `"1"`}, {`0`, `"0"`}, {`0`, `""`}, {`1`, `"0x1"`}, {`10`, `"1_0"`}, {`1`, `" 1"`},
		{`1`, `"+1"`}, {`1`, `"01"`}, {`0`, `"-0"`}, {`1`, `"１"`}, {`1`, `"١"`}, {`1`, `"\u0031"`},
		{`9223372036854775807`, `"9223372036854775807"`}, {`9223372036854775808`, `"9223372036854775808"`},
		// clause 2: exact integers, float64 traps
		{`9007199254740993`, `9007199254740992`}, {`9223372036854775807`, `-9223372036854775808`},
		{`9223372036854775807`, `9223372036854775806`}, {`1.5`, `1`}, {`1.0`, `1`}, {`-0`, `0`}, {`1e3`, `"1000"`},
		// clause 3: exact values
		{`1.5`, `15e-1`}, {`1.5`, `1.50`}, {`1e400`, `10e399`}, {`1e-400`, `0`}, {`0.3`, `0.30000000000000001`},
		{`1e999999999999999999`, `10e999999999999999998`},
		// clauses 1, 4, 6
		{`null`, `null`}, {`null`, `0`}, {`"é"`, `"e\u0301"`}, {`"\ud83d\ude00"`, `"😀"`}, {`"\ufffd"`, "\"\xff\""},
		// invalid received ids
		{`1`, `01`}, {`1`, `[1]`}, {`0`, `false`}, {`1`, "\ufeff1"},
	} {
		f.Add([]byte(pair[0]), []byte(pair[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		checkEqual(t, a, b)
	})
}

func checkEqual(t *testing.T, a, b []byte) {
	idA, errA := Parse(a)
	idB, errB := Parse(b)
	if errA != nil {
		if errB == nil {
			checkEqual(t, b, a) // check the direction with a valid sent id
		}
		return
	}
	refA := refParse(a)
	if errB == nil {
		refB := refParse(b)
		if refA.Err != "" || refB.Err != "" {
			t.Fatalf("Parse accepts %q and %q, reference rejects one: %q / %q", truncated(a), truncated(b), refA.Err, refB.Err)
		}
		eq := Equal(idA, idB)
		if eq != Equal(idB, idA) {
			t.Fatalf("Equal(%s, %s) = %v but Equal(%s, %s) = %v", truncated(a), truncated(b), eq, truncated(b), truncated(a), !eq)
		}
		if keys := idA.Key() == idB.Key(); keys != eq {
			t.Fatalf("Equal(%s, %s) = %v but Key() == Key() is %v", truncated(a), truncated(b), eq, keys)
		}
		if ks := idA.Key().String() == idB.Key().String(); ks != eq {
			t.Fatalf("Equal(%s, %s) = %v but Key().String() equal is %v (%s, %s)", truncated(a), truncated(b), eq, ks, idA.Key(), idB.Key())
		}
		if want := refEqual(refA.ID, refB.ID); eq != want {
			t.Fatalf("Equal(%s, %s) = %v, reference rule says %v", truncated(a), truncated(b), eq, want)
		}
		if idA == idB && !eq {
			t.Fatalf("%s == %s as Go values but not Equal", truncated(a), truncated(b))
		}
		if idA.Kind() != KindNull && idB.Kind() != KindNull {
			var p Pending[int]
			if err := p.Add(idA, 1); err != nil {
				t.Fatalf("Pending.Add(%s) = %v", truncated(a), err)
			}
			if err := p.Add(idB, 2); errors.Is(err, ErrDuplicate) != eq {
				t.Fatalf("Pending.Add(%s) after Add(%s) = %v, Equal is %v", truncated(b), truncated(a), err, eq)
			}
			if got := p.Len(); got != 2-btoi(eq) {
				t.Fatalf("Len() = %d after adding %s and %s (Equal %v)", got, truncated(a), truncated(b), eq)
			}
			var q Pending[int]
			_ = q.Add(idA, 1)
			sent, v, ok := q.TakeJSON(b)
			if ok != eq || (ok && (sent != idA || v != 1)) {
				t.Fatalf("after Add(%s), TakeJSON(%s) = %v, %d, %v; Equal is %v", truncated(a), truncated(b), sent, v, ok, eq)
			}
			_ = q.Add(idA, 1)
			sent, v, ok = q.Take(idB)
			if ok != eq || (ok && (sent != idA || v != 1)) {
				t.Fatalf("after Add(%s), Take(%s) = %v, %d, %v; Equal is %v", truncated(a), truncated(b), sent, v, ok, eq)
			}
		}
		return
	}
	// b is not a valid id: it matches nothing.
	if idA.Kind() != KindNull {
		var p Pending[int]
		_ = p.Add(idA, 1)
		if sent, _, ok := p.TakeJSON(b); ok || p.Len() != 1 {
			t.Fatalf("after Add(%s), TakeJSON(%q) = %v, %v, but Parse rejects it: %v", truncated(a), truncated(b), sent, ok, errB)
		}
	}
}

func FuzzCanonical(f *testing.F) {
	for _, s := range []string{
		// clause 5: canonical spellings, bounds both sides
		"0", "1", "-1", "42", "-12", "9007199254740993", "9223372036854775807", "-9223372036854775808",
		// clause 5: near-misses
		"00", "01", "-0", "+1", " 1", "1 ", "1.0", "1e0", "0x1", "１", "١", "1_0", "", "9223372036854775808",
		// more lax-parser traps: other spaces, digit scripts, signs and bases
		"-9223372036854775809", "\t1", "1\n", "\u00a01", "0b1", "0o7", "1,000", "٣", "१", "𝟙", "--1", "-+1", "Infinity",
		// strings that are not UTF-8 (String replaces each bad byte with U+FFFD)
		"\xff", "1\xff", "\xed\xa0\x80",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkCanonical(t, s)
	})
}

func checkCanonical(t *testing.T, s string) {
	id := String(s)
	if diff := cmp.Diff(refFromString(s), refOf(id)); diff != "" {
		t.Fatalf("String(%q) disagrees with the reference (-reference +package):\n%s", truncated(s), diff)
	}
	// Parse of the JSON encoding (encoding/json replaces invalid bytes as String does).
	enc, _ := json.Marshal(s)
	if parsed, err := Parse(enc); err != nil || parsed != id {
		t.Fatalf("Parse(json.Marshal(%q)) = %v, %v; String gave %v", truncated(s), parsed, err, id)
	}

	n, canonical := refCanonicalInt(s)
	if canonical {
		if !Equal(id, Int(n)) || id.Key() != Int(n).Key() {
			t.Fatalf("String(%q) is not Equal to Int(%d)", truncated(s), n)
		}
		if parsed, err := Parse([]byte(s)); err != nil || parsed != Int(n) {
			t.Fatalf("Parse(%q) = %v, %v; want Int(%d)", truncated(s), parsed, err, n)
		}
		var p Pending[int]
		_ = p.Add(Int(n), 1)
		if sent, _, ok := p.TakeJSON(enc); !ok || sent != Int(n) {
			t.Fatalf("after Add(Int(%d)), TakeJSON(%s) = %v, %v", n, truncated(enc), sent, ok)
		}
	}

	// Every integer s could be read as by a lax parser: Equal exactly when
	// s is its canonical decimal spelling.
	for _, m := range laxInts(s) {
		want := s == strconv.FormatInt(m, 10)
		if got := Equal(id, Int(m)); got != want {
			t.Fatalf("Equal(String(%q), Int(%d)) = %v, want %v", truncated(s), m, got, want)
		}
		if got := id.Key() == Int(m).Key(); got != want {
			t.Fatalf("String(%q).Key() == Int(%d).Key() is %v, want %v", truncated(s), m, got, want)
		}
	}

	// Near-misses of a canonical spelling never equal an integer.
	if canonical {
		near := []string{"0" + s, "+" + s, " " + s, s + " ", "\t" + s, s + "\n", s + ".0", s + "e0", "\u00a0" + s, s + "\x00"}
		if s == "0" {
			near = append(near, "-0", "-00")
		}
		for _, nm := range near {
			nid := String(nm)
			if Equal(nid, Int(n)) {
				t.Fatalf("near-miss String(%q) is Equal to Int(%d)", truncated(nm), n)
			}
			if _, ok := refCanonicalInt(nm); ok {
				t.Fatalf("near-miss %q is canonical in the reference", truncated(nm))
			}
			if ks := nid.Key().String(); !strings.HasPrefix(ks, `"`) {
				t.Fatalf("near-miss String(%q) has key %s, want a string key", truncated(nm), ks)
			}
			for _, m := range laxInts(nm) {
				if Equal(nid, Int(m)) {
					t.Fatalf("near-miss String(%q) is Equal to Int(%d)", truncated(nm), m)
				}
			}
		}
		// The negation is canonical for -n (except for 0).
		if n > 0 && !Equal(String("-"+s), Int(-n)) {
			t.Fatalf("String(%q) is not Equal to Int(%d)", "-"+truncated(s), -n)
		}
	}
}

// laxInts returns the integers that loose parsers of other languages would
// read from s: Go's ParseInt with base prefixes and underscores, after
// trimming Unicode spaces (Python int, JavaScript Number), float parsing
// (JavaScript Number), and decimal digits of any script (Python int).
func laxInts(s string) []int64 {
	var out []int64
	t := strings.TrimSpace(strings.ReplaceAll(s, "\x00", ""))
	if n, err := strconv.ParseInt(t, 0, 64); err == nil {
		out = append(out, n)
	}
	if n, err := strconv.ParseInt(strings.TrimLeft(strings.TrimPrefix(t, "+"), "0"), 10, 64); err == nil {
		out = append(out, n)
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil && f == float64(int64(f)) {
		out = append(out, int64(f))
	}
	if t == "" {
		out = append(out, 0) // JavaScript Number("") and Number(" ")
	}
	// Decimal digits of any script, mapped to ASCII.
	ascii := strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf || !unicode.IsDigit(r) {
			return r
		}
		k := 0
		for unicode.IsDigit(r-rune(k)-1) && k < 100 {
			k++
		}
		return '0' + rune(k%10)
	}, t)
	if n, err := strconv.ParseInt(strings.ReplaceAll(ascii, "_", ""), 10, 64); err == nil {
		out = append(out, n)
	}
	return out
}

// truncated formats a fuzz input for messages: Go-quoted, at most 200
// bytes of it, whatever the verb.
type truncated string

func (s truncated) Format(f fmt.State, verb rune) {
	if len(s) > 200 {
		fmt.Fprintf(f, "%q...(%d bytes)", string(s[:200]), len(s))
		return
	}
	fmt.Fprintf(f, "%q", string(s))
}
