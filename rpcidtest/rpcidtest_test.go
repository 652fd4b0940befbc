package rpcidtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/rpcid/rpcid"
)

// rpcidMatch is the rule itself.
func rpcidMatch(sent, received []byte) bool {
	s, err := rpcid.Parse(sent)
	if err != nil {
		return false
	}
	r, err := rpcid.Parse(received)
	return err == nil && rpcid.Equal(s, r)
}

// atoiMatch normalizes like SDKs that call a loose integer parser on string
// ids (Python's int(), Rust's i64::from_str): strconv.Atoi accepts "+1",
// "01" and "-0", and numbers are truncated to int from float64.
func atoiMatch(sent, received []byte) bool {
	norm := func(raw []byte) (any, bool) {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, false
		}
		switch x := v.(type) {
		case string:
			if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil {
				return n, true
			}
		case float64:
			return int(x), true
		}
		return v, true
	}
	s, ok1 := norm(sent)
	r, ok2 := norm(received)
	return ok1 && ok2 && reflect.DeepEqual(s, r)
}

// floatMatch normalizes like SDKs that decode ids into float64 (the Go
// SDK's MakeID, JavaScript's Number): strings are parsed as floats too.
func floatMatch(sent, received []byte) bool {
	norm := func(raw []byte) (any, bool) {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, false
		}
		if s, ok := v.(string); ok {
			if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
				return f, true
			}
		}
		return v, true
	}
	s, ok1 := norm(sent)
	r, ok2 := norm(received)
	return ok1 && ok2 && reflect.DeepEqual(s, r)
}

// byteMatch compares the raw bytes, as SDKs that keep ids as raw JSON do:
// it is strict, and fails the gateway case ("1" for 1).
func byteMatch(sent, received []byte) bool {
	return bytes.Equal(bytes.TrimSpace(sent), bytes.TrimSpace(received))
}

// recordingTB is a testing.TB that records Errorf calls instead of failing.
// Methods CheckMatcher does not call go to the real test.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Helper()                         {}
func (r *recordingTB) Logf(format string, args ...any) {}
func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func TestVectors(t *testing.T) {
	vs := Vectors()
	var decode, pair int
	names := map[string]bool{}
	for _, v := range vs {
		key := string(v.Type) + "/" + v.Name
		if names[key] {
			t.Errorf("duplicate vector %s", key)
		}
		names[key] = true
		if !strings.HasPrefix(v.Reason, "grammar:") && !strings.HasPrefix(v.Reason, "clause "+v.Clause+":") {
			t.Errorf("%s: reason %q does not name clause %q", key, v.Reason, v.Clause)
		}
		switch v.Type {
		case Decode:
			decode++
			id, err := rpcid.Parse(v.Raw)
			if (err == nil) != v.Valid {
				t.Errorf("%s: Parse(%q) error %v, vector says valid %v", key, v.Raw, err, v.Valid)
			}
			if err == nil && (id.Kind().String() != v.Kind || id.String() != v.Canonical || id.Key().String() != v.Key) {
				t.Errorf("%s: Parse(%q) = %s kind %v key %s; vector says %s kind %s key %s", key, v.Raw, id, id.Kind(), id.Key(), v.Canonical, v.Kind, v.Key)
			}
		case Pair:
			pair++
			if v.Raw != nil || v.A == nil && v.B == nil {
				t.Errorf("%s: pair fields not set as documented", key)
			}
		default:
			t.Errorf("%s: unknown type", key)
		}
	}
	if decode < 150 || pair < 50 || decode+pair < 200 {
		t.Errorf("%d decode and %d pair vectors; want many more", decode, pair)
	}
	if v := Version(); !strings.HasPrefix(v, "1.") {
		t.Errorf("Version() = %q, want 1.x.y", v)
	}
	// Callers may modify what they get.
	vs[0].Raw = append(vs[0].Raw[:0], "modified"...)
	if bytes.Equal(Vectors()[0].Raw, vs[0].Raw) {
		t.Error("Vectors() shares its slices between calls")
	}
	// Invalid UTF-8 cases come through raw_hex.
	found := false
	for _, v := range vs {
		if v.Name == "str-invalid-byte-ff" && bytes.Equal(v.Raw, []byte("\"\xff\"")) && v.Error == "invalid-utf8" {
			found = true
		}
	}
	if !found {
		t.Error(`vector str-invalid-byte-ff is not the 3 bytes "\xff" with error invalid-utf8`)
	}
}

func TestCheckMatcherPassesRpcid(t *testing.T) {
	CheckMatcher(t, rpcidMatch)
	if ds := Disagreements(rpcidMatch); len(ds) != 0 {
		t.Errorf("rpcid disagrees with its own vectors: %v", ds)
	}
	// A request is never sent with a null id, so a matcher may answer
	// anything for a null sent id.
	noNull := func(sent, received []byte) bool {
		return !bytes.Equal(sent, []byte("null")) && rpcidMatch(sent, received)
	}
	if ds := Disagreements(noNull); len(ds) != 0 {
		t.Errorf("a matcher refusing null sent ids is reported: %v", ds)
	}
}

func TestDisagreementString(t *testing.T) {
	for _, c := range []struct {
		received string
		want     string
	}{
		{`"01"`, "pair/x: match(sent `1`, received `\"01\"`) = true, want false: clause 5: r"},
		{" 1", "pair/x: match(sent `1`, received ` 1`) = true, want false: clause 5: r"},
		// Empty input is spelled out, never shown as "" (the empty JSON string).
		{"", "pair/x: match(sent `1`, received (empty: 0 bytes)) = true, want false: clause 5: r"},
		{`""`, "pair/x: match(sent `1`, received `\"\"`) = true, want false: clause 5: r"},
		// A JSON escape is shown as the six bytes it is; the raw bytes of
		// U+00A0 are shown by code point and in hexadecimal.
		{`"\u00a01"`, "pair/x: match(sent `1`, received `\"\\u00a01\"`) = true, want false: clause 5: r"},
		{"\"\u00a01\"", "pair/x: match(sent `1`, received `\"<U+00A0>1\"` (bytes 22 c2 a0 31 22)) = true, want false: clause 5: r"},
		{"\"\xff\"", "pair/x: match(sent `1`, received `\"<0xff>\"` (bytes 22 ff 22)) = true, want false: clause 5: r"},
		{"\t1\n", "pair/x: match(sent `1`, received `<U+0009>1<U+000A>` (bytes 09 31 0a)) = true, want false: clause 5: r"},
		{"\"`\"", "pair/x: match(sent `1`, received `\"<U+0060>\"` (bytes 22 60 22)) = true, want false: clause 5: r"},
		{"\"\ufffd\"", "pair/x: match(sent `1`, received `\"<U+FFFD>\"` (bytes 22 ef bf bd 22)) = true, want false: clause 5: r"},
		{"\"" + strings.Repeat("\t", 40) + "\"", "pair/x: match(sent `1`, received `\"" + strings.Repeat("<U+0009>", 40) + "\"` (bytes 22" + strings.Repeat(" 09", 31) + " ...; 42 bytes in all)) = true, want false: clause 5: r"},
	} {
		d := Disagreement{Vector: "pair/x", Sent: []byte("1"), Received: []byte(c.received), Got: true, Want: false, Reason: "clause 5: r"}
		if got := d.String(); got != c.want {
			t.Errorf("String() = %s\nwant       %s", got, c.want)
		}
	}
}

// checkCatches runs CheckMatcher on a lax matcher with a recording TB and
// asserts that it reported at least the named vectors, each with a clause.
func checkCatches(t *testing.T, match func(sent, received []byte) bool, wantVectors ...string) {
	t.Helper()
	rec := &recordingTB{TB: t}
	CheckMatcher(rec, match)
	if len(rec.errors) == 0 {
		t.Fatal("CheckMatcher reported nothing for a lax matcher")
	}
	all := strings.Join(rec.errors, "\n")
	for _, name := range wantVectors {
		if !strings.Contains(all, "rpcidtest: "+name+":") {
			t.Errorf("CheckMatcher did not report %s; it reported:\n%s", name, all)
		}
	}
	for _, e := range rec.errors {
		if !strings.Contains(e, "clause ") && !strings.Contains(e, "grammar:") {
			t.Errorf("report without a rule clause: %s", e)
		}
	}
	if len(rec.errors) != len(Disagreements(match)) {
		t.Errorf("CheckMatcher reported %d errors, Disagreements returns %d", len(rec.errors), len(Disagreements(match)))
	}
}

func TestCheckMatcherCatchesAtoi(t *testing.T) {
	checkCatches(t, atoiMatch,
		"pair/one-vs-plus",               // Atoi("+1") is 1
		"pair/one-vs-leading-zero",       // Atoi("01") is 1
		"pair/zero-vs-minus-zero-string", // Atoi("-0") is 0
		"pair/one-vs-leading-space",      // TrimSpace then Atoi
		"pair/int-1.5-vs-1",              // int(1.5) is 1
	)
}

func TestCheckMatcherCatchesFloat64(t *testing.T) {
	checkCatches(t, floatMatch,
		"pair/int-2p53-plus-1-vs-2p53", // both 2^53 as float64
		"pair/int-max-vs-max-minus-1",  // both 2^63 as float64
		"pair/num-0.3-float-twin",      // one float64
		"pair/num-1e-400-vs-zero",      // underflow to 0
		"pair/one-vs-1.0-string",       // ParseFloat("1.0") is 1
		"pair/2p63-number-vs-string",   // strings never equal KindNumber
	)
}

func TestCheckMatcherCatchesByteExact(t *testing.T) {
	checkCatches(t, byteMatch,
		"pair/int-vs-canonical-string", // the gateway case
		"pair/int-1.0",
		"decode/num-1.50 (key)",
	)
}

// The fuzz helper's check, driven by its own seeds, catches the lax
// matchers too, and passes rpcid.
func TestFuzzSeedsCatchLaxMatchers(t *testing.T) {
	count := func(match func(sent, received []byte) bool) int {
		n := 0
		for _, s := range seeds() {
			n += len(fuzzDisagreements(match, s[0], s[1]))
		}
		return n
	}
	if n := count(rpcidMatch); n != 0 {
		t.Errorf("rpcid: %d disagreements on the fuzz seeds", n)
	}
	for name, m := range map[string]func(sent, received []byte) bool{"atoi": atoiMatch, "float64": floatMatch, "bytes": byteMatch} {
		if n := count(m); n == 0 {
			t.Errorf("%s matcher: no disagreement found on the fuzz seeds", name)
		}
	}
	// Variants alone find the Atoi trap from a plain integer pair.
	ds := fuzzDisagreements(atoiMatch, []byte("7"), []byte("7"))
	found := false
	for _, d := range ds {
		if string(d.Received) == `"+7"` && d.Got && !d.Want && strings.Contains(d.Reason, "clause 5") {
			found = true
		}
	}
	if !found {
		t.Errorf("variants of 7 did not catch Atoi(\"+7\"); got %v", ds)
	}
}

// FuzzRpcidMatcher runs the fuzz helper on rpcid itself: with go test it
// runs the seeds, with -fuzz it explores.
func FuzzRpcidMatcher(f *testing.F) {
	FuzzMatcher(f, rpcidMatch)
}

// The README's example of CheckMatcher's output is what it prints, prefix
// included, for a matcher that drops "_".
func TestReadmeExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, line := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(line, "rpcidtest: pair/ten-vs-underscore:") {
			want = line
		}
	}
	if want == "" {
		t.Fatal("README has no line starting with rpcidtest: pair/ten-vs-underscore:")
	}
	drop := func(b []byte) string { return strings.ReplaceAll(strings.Trim(string(b), `"`), "_", "") }
	for _, d := range Disagreements(func(sent, received []byte) bool { return drop(sent) == drop(received) }) {
		// CheckMatcher reports each as t.Errorf("rpcidtest: %v", d).
		if got := fmt.Sprintf("rpcidtest: %v", d); strings.HasPrefix(got, "rpcidtest: pair/ten-vs-underscore:") {
			if got != want {
				t.Errorf("README says\n%s\nCheckMatcher says\n%s", want, got)
			}
			return
		}
	}
	t.Error("no disagreement on pair/ten-vs-underscore")
}
