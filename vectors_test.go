package rpcid

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// The conformance vectors in rpcidtest/vectors.json (schema: testdata/VECTORS.md)
// run here through Parse, AppendJSON, Key, Equal and Pending, and through the
// reference implementation in reference_test.go.

// vectorsPath is the one copy of the vectors, which package rpcidtest embeds.
const vectorsPath = "rpcidtest/vectors.json"

type vectorFile struct {
	Version string         `json:"version"`
	Schema  string         `json:"schema"`
	Decode  []decodeVector `json:"decode"`
	Pairs   []pairVector   `json:"pairs"`
}

type decodeVector struct {
	Name      string  `json:"name"`
	Clause    string  `json:"clause"`
	Raw       *string `json:"raw"`
	RawHex    *string `json:"raw_hex"`
	Valid     bool    `json:"valid"`
	Error     string  `json:"error"`
	Kind      string  `json:"kind"`
	Canonical string  `json:"canonical"`
	Key       string  `json:"key"`
	Reason    string  `json:"reason"`
}

type pairVector struct {
	Name   string  `json:"name"`
	Clause string  `json:"clause"`
	A      *string `json:"a"`
	AHex   *string `json:"a_hex"`
	B      *string `json:"b"`
	BHex   *string `json:"b_hex"`
	Equal  bool    `json:"equal"`
	Reason string  `json:"reason"`
}

// rawBytes returns the bytes of a text or hex raw field; exactly one must be set.
func rawBytes(text, hexText *string) ([]byte, error) {
	switch {
	case text != nil && hexText == nil:
		return []byte(*text), nil
	case text == nil && hexText != nil:
		return hex.DecodeString(*hexText)
	}
	return nil, errors.New("exactly one of the text and hex fields must be present")
}

// loadVectors reads the vectors file strictly: unknown fields are errors.
func loadVectors(t testing.TB) vectorFile {
	t.Helper()
	data, err := os.ReadFile(vectorsPath)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	var vf vectorFile
	if err := dec.Decode(&vf); err != nil {
		t.Fatalf("%s: %v", vectorsPath, err)
	}
	return vf
}

var errorClasses = map[string]error{
	refSyntax:      ErrSyntax,
	refInvalidUTF8: ErrInvalidUTF8,
	refType:        ErrType,
	refRange:       ErrRange,
}

// errorClass names the sentinel err wraps, as vectors.json spells it.
func errorClass(err error) string {
	for name, sentinel := range errorClasses {
		if errors.Is(err, sentinel) {
			return name
		}
	}
	return fmt.Sprintf("unexpected error %v", err)
}

// decodeOutcome is what a decode vector states about one raw id.
type decodeOutcome struct {
	Valid     bool
	Error     string
	Kind      string
	Canonical string
	Key       string
}

func TestVectorsFile(t *testing.T) {
	vf := loadVectors(t)
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`).MatchString(vf.Version) {
		t.Errorf("version = %q, want MAJOR.MINOR.PATCH", vf.Version)
	}
	if n := len(vf.Decode) + len(vf.Pairs); n < 200 {
		t.Errorf("%d vectors, want at least 200", n)
	}
	clauses := map[string]int{}
	names := map[string]bool{}
	checkCommon := func(kind, name, clause, reason string) {
		t.Helper()
		if name == "" || names[kind+name] {
			t.Errorf("%s %q: name empty or not unique", kind, name)
		}
		names[kind+name] = true
		want := "clause " + clause + ":"
		if clause == "grammar" {
			want = "grammar:"
		}
		if !regexp.MustCompile(`^(grammar|[1-7])$`).MatchString(clause) || !strings.HasPrefix(reason, want) {
			t.Errorf("%s %q: clause %q and reason %q disagree", kind, name, clause, reason)
		}
		clauses[clause]++
	}
	decodedStrings := map[string]bool{}
	for _, v := range vf.Decode {
		checkCommon("decode", v.Name, v.Clause, v.Reason)
		raw, err := rawBytes(v.Raw, v.RawHex)
		if err != nil {
			t.Errorf("decode %q: %v", v.Name, err)
		}
		if v.RawHex != nil && utf8.Valid(raw) {
			t.Errorf("decode %q: raw_hex used for valid UTF-8; use raw", v.Name)
		}
		if v.Valid {
			if v.Error != "" || v.Kind == "" || v.Canonical == "" || v.Key == "" {
				t.Errorf("decode %q: a valid case needs kind, canonical and key, and no error", v.Name)
			}
			if v.Kind == "string" {
				var s string
				if json.Unmarshal([]byte(v.Canonical), &s) == nil {
					decodedStrings[s] = true
				}
			}
		} else if _, ok := errorClasses[v.Error]; !ok || v.Kind != "" || v.Canonical != "" || v.Key != "" {
			t.Errorf("decode %q: an invalid case needs a known error class and nothing else", v.Name)
		}
	}
	for _, v := range vf.Pairs {
		checkCommon("pair", v.Name, v.Clause, v.Reason)
		if _, err := rawBytes(v.A, v.AHex); err != nil {
			t.Errorf("pair %q a: %v", v.Name, err)
		}
		if _, err := rawBytes(v.B, v.BHex); err != nil {
			t.Errorf("pair %q b: %v", v.Name, err)
		}
	}
	for _, c := range []string{"grammar", "1", "2", "3", "4", "5", "6"} {
		if clauses[c] == 0 {
			t.Errorf("no vector for clause %s", c)
		}
	}
	// Every near-miss listed in the rule (clause 5) is a decode case.
	for _, s := range []string{"00", "01", "-0", "+1", " 1", "1 ", "1.0", "1e0", "0x1", "１", "١", "1_0", "", "9223372036854775808"} {
		if !decodedStrings[s] {
			t.Errorf("near-miss string %q has no decode vector", s)
		}
	}
}

func TestVectorsDecode(t *testing.T) {
	for _, v := range loadVectors(t).Decode {
		raw, err := rawBytes(v.Raw, v.RawHex)
		if err != nil {
			t.Fatalf("decode %q: %v", v.Name, err)
		}
		want := decodeOutcome{Valid: v.Valid, Error: v.Error, Kind: v.Kind, Canonical: v.Canonical, Key: v.Key}

		// The package.
		id, err := Parse(raw)
		got := decodeOutcome{Valid: err == nil}
		if err != nil {
			got.Error = errorClass(err)
		} else {
			got.Kind = id.Kind().String()
			got.Canonical = string(id.AppendJSON(nil))
			got.Key = id.Key().String()
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("decode %q: Parse(%q) mismatch (-vector +got):\n%s\nreason: %s", v.Name, raw, diff, v.Reason)
		}
		if err == nil {
			checkSpellings(t, "decode "+v.Name, id)
		}
		var uid ID
		uerr := uid.UnmarshalJSON(raw)
		if (uerr == nil) != (err == nil) || uid != id || (err != nil && errorClass(uerr) != got.Error) {
			t.Errorf("decode %q: UnmarshalJSON(%q) = %v, %v; Parse gave %v, %v", v.Name, raw, uid, uerr, id, err)
		}

		// The reference.
		ref := refParse(raw)
		rgot := decodeOutcome{Valid: ref.Err == "", Error: ref.Err}
		if ref.Err == "" {
			rgot.Kind = ref.ID.Kind
			rgot.Canonical = refCanonicalSpelling(ref.ID)
			rgot.Key = v.Key // the reference has its own key spelling; checked below
			if err == nil && refKey(ref.ID) != refKey(refOf(id)) {
				t.Errorf("decode %q: reference key %q, package value %q", v.Name, refKey(ref.ID), refKey(refOf(id)))
			}
		}
		if v.Valid && v.Kind == "string" {
			// The canonical spelling of a string is JSON; the reference
			// decodes it rather than predicting the escapes chosen.
			var s string
			if json.Unmarshal([]byte(v.Canonical), &s) != nil || s != ref.ID.Str {
				t.Errorf("decode %q: canonical %s does not decode to the reference's %q", v.Name, v.Canonical, ref.ID.Str)
			}
			rgot.Canonical = v.Canonical
		}
		if diff := cmp.Diff(want, rgot); diff != "" {
			t.Errorf("decode %q: reference disagrees with the vector (-vector +reference):\n%s", v.Name, diff)
		}
	}
}

// refCanonicalSpelling is what AppendJSON must write for a non-string id.
func refCanonicalSpelling(id refID) string {
	switch id.Kind {
	case "null":
		return "null"
	case "int":
		return fmt.Sprint(id.Int)
	case "number":
		return id.Text
	}
	return ""
}

// checkSpellings checks that every way of writing id agrees with AppendJSON.
func checkSpellings(t *testing.T, name string, id ID) {
	t.Helper()
	out := id.AppendJSON(nil)
	if s := id.String(); s != string(out) {
		t.Errorf("%s: String() = %q, AppendJSON = %q", name, s, out)
	}
	m, err := id.MarshalJSON()
	if err != nil || string(m) != string(out) {
		t.Errorf("%s: MarshalJSON() = %q, %v; AppendJSON = %q", name, m, err, out)
	}
	prefix := []byte("prefix")
	if got := id.AppendJSON(prefix); string(got) != "prefix"+string(out) {
		t.Errorf("%s: AppendJSON(prefix) = %q", name, got)
	}
	if n, ok := id.Number(); ok != (id.Kind() == KindInt || id.Kind() == KindNumber) || (ok && string(n) != string(out)) {
		t.Errorf("%s: Number() = %q, %v; AppendJSON = %q", name, n, ok, out)
	}
}

// refOf converts an ID to the reference's representation, through the
// accessors only.
func refOf(id ID) refID {
	switch id.Kind() {
	case KindNull:
		return refID{Kind: "null"}
	case KindInt:
		n, _ := id.Int64()
		return refID{Kind: "int", Int: n}
	case KindString:
		s, _ := id.StringValue()
		return refID{Kind: "string", Str: s}
	case KindNumber:
		n, _ := id.Number()
		r := refParse([]byte(n))
		if r.Err != "" || r.ID.Kind != "number" {
			panic(fmt.Sprintf("KindNumber id %q: reference says %+v", n, r))
		}
		return r.ID
	}
	return refID{Kind: "absent"}
}

func TestVectorsPairs(t *testing.T) {
	for _, v := range loadVectors(t).Pairs {
		a, errA := rawBytes(v.A, v.AHex)
		b, errB := rawBytes(v.B, v.BHex)
		if errA != nil || errB != nil {
			t.Fatalf("pair %q: %v %v", v.Name, errA, errB)
		}
		for _, dir := range [2][2][]byte{{a, b}, {b, a}} {
			x, y := dir[0], dir[1]
			idX, errX := Parse(x)
			idY, errY := Parse(y)
			rx, ry := refParse(x), refParse(y)
			if (errX == nil) != (rx.Err == "") || (errY == nil) != (ry.Err == "") {
				t.Errorf("pair %q: Parse and reference disagree on validity of %q / %q", v.Name, x, y)
				continue
			}
			valid := errX == nil && errY == nil
			if !valid {
				if v.Equal {
					t.Errorf("pair %q: equal is true but %q or %q is not a valid id", v.Name, x, y)
				}
			} else {
				got := Equal(idX, idY)
				if got != v.Equal {
					t.Errorf("pair %q: Equal(%s, %s) = %v, want %v (%s)", v.Name, x, y, got, v.Equal, v.Reason)
				}
				if keys := idX.Key() == idY.Key(); keys != v.Equal {
					t.Errorf("pair %q: Key(%s) == Key(%s) is %v, want %v", v.Name, x, y, keys, v.Equal)
				}
				if r := refEqual(rx.ID, ry.ID); r != v.Equal {
					t.Errorf("pair %q: reference says %v, vector %v", v.Name, r, v.Equal)
				}
			}
			// A response with id y finds a request sent with id x.
			if errX != nil {
				continue
			}
			var p Pending[int]
			if err := p.Add(idX, 1); idX.Kind() == KindNull {
				if !errors.Is(err, ErrType) {
					t.Errorf("pair %q: Pending.Add(null) = %v, want ErrType", v.Name, err)
				}
				continue
			} else if err != nil {
				t.Fatalf("pair %q: Pending.Add(%s) = %v", v.Name, x, err)
			}
			sent, val, ok := p.TakeJSON(y)
			if ok != v.Equal || (ok && (sent != idX || val != 1)) {
				t.Errorf("pair %q: after Add(%s), TakeJSON(%q) = %v, %v, %v; want ok %v", v.Name, x, y, sent, val, ok, v.Equal)
			}
			if want := 1 - btoi(v.Equal); p.Len() != want {
				t.Errorf("pair %q: Len() = %d after TakeJSON, want %d", v.Name, p.Len(), want)
			}
		}
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Clause 7 has no wire spelling, so no vector: the zero ID is checked here.
func TestAbsentClause7(t *testing.T) {
	var zero ID
	others := []ID{Null(), Int(0), String(""), String("absent"), MustParse("0.5")}
	if !Equal(zero, zero) || zero.Key() != (ID{}).Key() || !zero.IsZero() || zero.Kind() != KindAbsent {
		t.Errorf("zero ID: Equal to itself %v, IsZero %v, Kind %v", Equal(zero, zero), zero.IsZero(), zero.Kind())
	}
	for _, o := range others {
		if Equal(zero, o) || Equal(o, zero) || zero.Key() == o.Key() || o.IsZero() {
			t.Errorf("absent and %v: Equal %v/%v, same key %v, IsZero %v", o, Equal(zero, o), Equal(o, zero), zero.Key() == o.Key(), o.IsZero())
		}
	}
	if got := zero.AppendJSON([]byte("x")); string(got) != "x" {
		t.Errorf("zero.AppendJSON(x) = %q, want x", got)
	}
	if s, ks := zero.String(), zero.Key().String(); s != "absent" || ks != "absent" {
		t.Errorf("zero.String() = %q, Key().String() = %q, want absent", s, ks)
	}
	if _, err := zero.MarshalJSON(); !errors.Is(err, ErrType) {
		t.Errorf("zero.MarshalJSON() error = %v, want ErrType", err)
	}
	var p Pending[int]
	if err := p.Add(zero, 1); !errors.Is(err, ErrType) || p.Len() != 0 {
		t.Errorf("Pending.Add(absent) = %v, Len %d; want ErrType, 0", err, p.Len())
	}
	if _, _, ok := p.Take(zero); ok {
		t.Error("Pending.Take(absent) found something in an empty table")
	}
	// A missing member leaves the ID absent; null makes it KindNull.
	var msg struct {
		ID ID `json:"id"`
	}
	if err := json.Unmarshal([]byte(`{"jsonrpc":"2.0"}`), &msg); err != nil || !msg.ID.IsZero() {
		t.Errorf("missing id member: %v, %v; want absent", msg.ID, err)
	}
	if err := json.Unmarshal([]byte(`{"id":null}`), &msg); err != nil || msg.ID != Null() {
		t.Errorf("null id member: %v, %v; want null", msg.ID, err)
	}
}

// The reference agrees with itself: refKey decides exactly as refEqual,
// on every pair of valid decode vectors.
func TestReferenceKeyMatchesEqual(t *testing.T) {
	var ids []refID
	for _, v := range loadVectors(t).Decode {
		raw, _ := rawBytes(v.Raw, v.RawHex)
		if r := refParse(raw); r.Err == "" {
			ids = append(ids, r.ID)
		}
	}
	for _, a := range ids {
		for _, b := range ids {
			if e, k := refEqual(a, b), refKey(a) == refKey(b); e != k {
				t.Errorf("reference: refEqual(%+v, %+v) = %v, keys equal %v", a, b, e, k)
			}
		}
	}
}
