package rpcid_test

import (
	"errors"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rpcid/rpcid"
)

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b string // JSON; "" is the zero ID
		want bool
	}{
		// Same kind.
		{`null`, `null`, true},
		{`1`, `1`, true},
		{`1`, `2`, false},
		{`1`, `1.0`, true},
		{`0`, `-0`, true},
		{`1000`, `1e3`, true},
		{`9007199254740993`, `9007199254740992`, false},
		{`9223372036854775807`, `9223372036854775806`, false},
		{`1.5`, `15e-1`, true},
		{`1.5`, `1.50`, true},
		{`1.5`, `-1.5`, false},
		{`1e400`, `10e399`, true},
		{`1e400`, `1e401`, false},
		{`9223372036854775808`, `9.223372036854775808e18`, true},
		{`9223372036854775808`, `9223372036854775807`, false},
		{`"a"`, `"a"`, true},
		{`"a"`, `"\u0061"`, true},
		{`"a"`, `"A"`, false},
		{`"é"`, `"e\u0301"`, false}, // no Unicode normalization
		{`""`, `""`, true},
		// Strings and integers: canonical spellings only (rule 5).
		{`"0"`, `0`, true},
		{`0`, `"0"`, true},
		{`"1"`, `1`, true},
		{`"1"`, `1.0`, true},
		{`"-12"`, `-12`, true},
		{`"\u0031"`, `1`, true},
		{`"9223372036854775807"`, `9223372036854775807`, true},
		{`"-9223372036854775808"`, `-9223372036854775808`, true},
		{`"00"`, `0`, false},
		{`"01"`, `1`, false},
		{`"-0"`, `0`, false},
		{`"+1"`, `1`, false},
		{`" 1"`, `1`, false},
		{`"1 "`, `1`, false},
		{`"1.0"`, `1`, false},
		{`"1e0"`, `1`, false},
		{`"0x1"`, `1`, false},
		{`"１"`, `1`, false},
		{`"١"`, `1`, false},
		{`"1_0"`, `10`, false},
		{`""`, `0`, false},
		{`"9223372036854775808"`, `9223372036854775808`, false}, // strings never equal KindNumber
		{`"1.5"`, `1.5`, false},
		{`"01"`, `"1"`, false},
		// null, absent and everything else.
		{`null`, `0`, false},
		{`null`, `"null"`, false},
		{`null`, `""`, false},
		{``, ``, true},
		{``, `null`, false},
		{``, `0`, false},
		{``, `""`, false},
	}
	parse := func(s string) rpcid.ID {
		if s == "" {
			return rpcid.ID{}
		}
		return rpcid.MustParse(s)
	}
	for _, tt := range tests {
		a, b := parse(tt.a), parse(tt.b)
		if got := rpcid.Equal(a, b); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if got := rpcid.Equal(b, a); got != tt.want {
			t.Errorf("Equal(%s, %s) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
		if got := a.Key() == b.Key(); got != tt.want {
			t.Errorf("Key(%s) == Key(%s) is %v, want %v (keys %v, %v)", tt.a, tt.b, got, tt.want, a.Key(), b.Key())
		}
	}
}

func TestKeyAsMapKey(t *testing.T) {
	m := map[rpcid.Key]string{}
	for _, s := range []string{`1`, `"a"`, `1.5`, `null`} {
		m[rpcid.MustParse(s).Key()] = s
	}
	for in, want := range map[string]string{`"1"`: `1`, `1.0`: `1`, `"\u0061"`: `"a"`, `150e-2`: `1.5`, `null`: `null`} {
		if got := m[rpcid.MustParse(in).Key()]; got != want {
			t.Errorf("m[Key(%s)] = %q, want %q", in, got, want)
		}
	}
	for _, in := range []string{`"01"`, `"1.5"`, `2`, `"A"`} {
		if got, ok := m[rpcid.MustParse(in).Key()]; ok {
			t.Errorf("m[Key(%s)] = %q, want no entry", in, got)
		}
	}
}

func TestPending(t *testing.T) {
	var p rpcid.Pending[string]
	if got := p.Len(); got != 0 {
		t.Fatalf("zero Pending Len = %d", got)
	}
	if _, _, ok := p.TakeJSON([]byte(`1`)); ok {
		t.Fatal("TakeJSON on a zero Pending found something")
	}
	adds := []struct {
		id  rpcid.ID
		v   string
		err error
	}{
		{rpcid.Int(1), "one", nil},
		{rpcid.String("abc"), "abc", nil},
		{rpcid.MustParse(`1.5`), "one and a half", nil},
		{rpcid.String("7"), "seven", nil},
		{rpcid.MustParse(`"1"`), "dup", rpcid.ErrDuplicate},
		{rpcid.MustParse(`1.0`), "dup", rpcid.ErrDuplicate},
		{rpcid.MustParse(`15e-1`), "dup", rpcid.ErrDuplicate},
		{rpcid.MustParse(`"\u0061bc"`), "dup", rpcid.ErrDuplicate},
		{rpcid.Null(), "null", rpcid.ErrType},
		{rpcid.ID{}, "absent", rpcid.ErrType},
		{rpcid.String("01"), "zero one", nil},
	}
	for _, a := range adds {
		err := p.Add(a.id, a.v)
		if !errors.Is(err, a.err) || (a.err == nil) != (err == nil) {
			t.Errorf("Add(%v) = %v, want %v", a.id, err, a.err)
		}
	}
	if got := p.Len(); got != 5 {
		t.Errorf("Len = %d, want 5", got)
	}

	var all []string
	for id, v := range p.All() {
		all = append(all, id.String()+"="+v)
	}
	sort.Strings(all)
	want := []string{`"01"=zero one`, `"7"=seven`, `"abc"=abc`, `1.5=one and a half`, `1=one`}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("All mismatch (-want +got):\n%s", diff)
	}

	takes := []struct {
		raw  string
		sent rpcid.ID
		v    string
		ok   bool
	}{
		{`"1"`, rpcid.Int(1), "one", true},
		{`1`, rpcid.ID{}, "", false}, // taken already
		{`7`, rpcid.String("7"), "seven", true},
		{`"01"`, rpcid.String("01"), "zero one", true},
		{`" 150e-2 "`, rpcid.ID{}, "", false}, // a string never equals a number
		{` 150e-2 `, rpcid.MustParse(`1.5`), "one and a half", true},
		{`"ab\u0063"`, rpcid.String("abc"), "abc", true},
		{`null`, rpcid.ID{}, "", false},
		{`{`, rpcid.ID{}, "", false},
		{``, rpcid.ID{}, "", false},
	}
	for _, tt := range takes {
		sent, v, ok := p.TakeJSON([]byte(tt.raw))
		if sent != tt.sent || v != tt.v || ok != tt.ok {
			t.Errorf("TakeJSON(%s) = %v, %q, %v; want %v, %q, %v", tt.raw, sent, v, ok, tt.sent, tt.v, tt.ok)
		}
	}
	if got := p.Len(); got != 0 {
		t.Errorf("Len after taking all = %d, want 0", got)
	}

	// Take works like TakeJSON, and an id can be added again once taken.
	if err := p.Add(rpcid.MustParse(`9223372036854775808`), "big"); err != nil {
		t.Fatal(err)
	}
	if sent, v, ok := p.Take(rpcid.MustParse(`92233720368547758.08e2`)); !ok || v != "big" || sent != rpcid.MustParse(`9223372036854775808`) {
		t.Errorf("Take(big) = %v, %q, %v", sent, v, ok)
	}
	if err := p.Add(rpcid.MustParse(`9223372036854775808`), "big again"); err != nil {
		t.Errorf("Add after Take: %v", err)
	}
	if _, _, ok := p.Take(rpcid.Null()); ok {
		t.Error("Take(null) found a request")
	}
}

func TestPendingAllStops(t *testing.T) {
	var p rpcid.Pending[int]
	for i := range 10 {
		if err := p.Add(rpcid.Int(int64(i)), i); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.Add(rpcid.String("s"), 10); err != nil {
		t.Fatal(err)
	}
	n := 0
	for id := range p.All() {
		p.Take(id) // taking while iterating is allowed
		n++
		if n == 3 {
			break
		}
	}
	if n != 3 || p.Len() != 8 {
		t.Errorf("after breaking at 3: iterated %d, Len %d; want 3, 8", n, p.Len())
	}
	for id := range p.All() {
		p.Take(id)
	}
	if p.Len() != 0 {
		t.Errorf("Len after taking all while iterating = %d", p.Len())
	}
}

func TestPendingDuplicateError(t *testing.T) {
	var p rpcid.Pending[int]
	_ = p.Add(rpcid.Int(1), 1)
	err := p.Add(rpcid.String("1"), 2)
	var e *rpcid.Error
	if !errors.As(err, &e) || e.Func != "Pending.Add" || e.Input != `"1"` || e.Offset != -1 {
		t.Fatalf("Add duplicate = %#v", err)
	}
	if want := `rpcid: Pending.Add "1": an Equal id is in flight: id already pending`; err.Error() != want {
		t.Errorf("error = %s\nwant    %s", err, want)
	}
}

// TestIDErrorMessages holds the exact text of the errors about an ID, which
// show it in its JSON spelling: a string id in quotes once, the
// absent id in words, never quoted, so it cannot be taken for the string
// "absent".
func TestIDErrorMessages(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes of two-byte runes
	tests := []struct {
		name      string
		err       func() error
		sentinel  error
		wantInput string
		want      string
	}{
		{"duplicate int", func() error { return addTwice(rpcid.Int(7), rpcid.MustParse(`7.0`)) }, rpcid.ErrDuplicate, `7`,
			`rpcid: Pending.Add 7: an Equal id is in flight: id already pending`},
		{"duplicate string", func() error { return addTwice(rpcid.Int(7), rpcid.String("7")) }, rpcid.ErrDuplicate, `"7"`,
			`rpcid: Pending.Add "7": an Equal id is in flight: id already pending`},
		{"duplicate string absent", func() error { return addTwice(rpcid.String("absent"), rpcid.String("absent")) }, rpcid.ErrDuplicate, `"absent"`,
			`rpcid: Pending.Add "absent": an Equal id is in flight: id already pending`},
		{"duplicate escaped", func() error { return addTwice(rpcid.String("a\"b\n"), rpcid.String("a\"b\n")) }, rpcid.ErrDuplicate, `"a\"b\n"`,
			`rpcid: Pending.Add "a\"b\n": an Equal id is in flight: id already pending`},
		{"duplicate number", func() error { return addTwice(rpcid.MustParse(`1.50`), rpcid.MustParse(`15e-1`)) }, rpcid.ErrDuplicate, `15e-1`,
			`rpcid: Pending.Add 15e-1: an Equal id is in flight: id already pending`},
		{"duplicate long", func() error { return addTwice(rpcid.String(long), rpcid.String(long)) }, rpcid.ErrDuplicate, `"` + strings.Repeat("é", 31),
			`rpcid: Pending.Add "` + strings.Repeat("é", 31) + `...: an Equal id is in flight: id already pending`},
		{"absent", func() error { var p rpcid.Pending[int]; return p.Add(rpcid.ID{}, 1) }, rpcid.ErrType, ``,
			`rpcid: Pending.Add absent id: no response can be matched to a notification: value cannot be an id`},
		{"null", func() error { var p rpcid.Pending[int]; return p.Add(rpcid.Null(), 1) }, rpcid.ErrType, `null`,
			`rpcid: Pending.Add null: no response can be matched to a null id: value cannot be an id`},
		{"marshal absent", func() error { _, err := rpcid.ID{}.MarshalJSON(); return err }, rpcid.ErrType, ``,
			`rpcid: MarshalJSON absent id: no JSON value (leave the member out with omitzero): value cannot be an id`},
		{"FromAny type", func() error { _, err := rpcid.FromAny(true); return err }, rpcid.ErrType, ``,
			`rpcid: FromAny: Go type bool is not a JSON string, number or null: value cannot be an id`},
	}
	for _, tt := range tests {
		err := tt.err()
		var e *rpcid.Error
		if !errors.As(err, &e) || !errors.Is(err, tt.sentinel) || e.Input != tt.wantInput || e.Offset != -1 {
			t.Errorf("%s: error = %#v; want Input %q, Offset -1, wrapping %v", tt.name, err, tt.wantInput, tt.sentinel)
			continue
		}
		if got := err.Error(); got != tt.want {
			t.Errorf("%s: error = %s\nwant      %s", tt.name, got, tt.want)
		}
	}
}

// addTwice adds a, then b, to an empty Pending and returns the second error.
func addTwice(a, b rpcid.ID) error {
	var p rpcid.Pending[int]
	if err := p.Add(a, 1); err != nil {
		return err
	}
	return p.Add(b, 2)
}

// TestTakeJSONMatch checks each outcome of TakeJSONMatch, that TakeJSON
// agrees with it, and what each leaves in the table.
func TestTakeJSONMatch(t *testing.T) {
	tests := []struct {
		raw      string
		want     rpcid.Match
		sent     rpcid.ID // for MatchTaken
		sentinel error    // for MatchInvalidID
	}{
		{`7`, rpcid.MatchTaken, rpcid.Int(7), nil},
		{`"7"`, rpcid.MatchTaken, rpcid.Int(7), nil},
		{` 7.0 `, rpcid.MatchTaken, rpcid.Int(7), nil},
		{`"abc"`, rpcid.MatchTaken, rpcid.String("abc"), nil},
		{`"a\u0062c"`, rpcid.MatchTaken, rpcid.String("abc"), nil},
		{`15e-1`, rpcid.MatchTaken, rpcid.MustParse(`1.5`), nil},
		{`8`, rpcid.MatchNotPending, rpcid.ID{}, nil},
		{`"07"`, rpcid.MatchNotPending, rpcid.ID{}, nil},
		{`"abd"`, rpcid.MatchNotPending, rpcid.ID{}, nil},
		{`"a\u0062d"`, rpcid.MatchNotPending, rpcid.ID{}, nil},
		{`1.25`, rpcid.MatchNotPending, rpcid.ID{}, nil},
		{`null`, rpcid.MatchNullID, rpcid.ID{}, nil},
		{" \tnull\n", rpcid.MatchNullID, rpcid.ID{}, nil},
		{``, rpcid.MatchInvalidID, rpcid.ID{}, rpcid.ErrSyntax},
		{`07`, rpcid.MatchInvalidID, rpcid.ID{}, rpcid.ErrSyntax},
		{`"null`, rpcid.MatchInvalidID, rpcid.ID{}, rpcid.ErrSyntax},
		{`nul`, rpcid.MatchInvalidID, rpcid.ID{}, rpcid.ErrSyntax},
		{`true`, rpcid.MatchInvalidID, rpcid.ID{}, rpcid.ErrType},
		{`{"id":7}`, rpcid.MatchInvalidID, rpcid.ID{}, rpcid.ErrType},
		{`"\ud800"`, rpcid.MatchInvalidID, rpcid.ID{}, rpcid.ErrInvalidUTF8},
		{`1e1000000000000000000`, rpcid.MatchInvalidID, rpcid.ID{}, rpcid.ErrRange},
	}
	fill := func() *rpcid.Pending[int] {
		p := new(rpcid.Pending[int])
		for i, id := range []rpcid.ID{rpcid.Int(7), rpcid.String("abc"), rpcid.MustParse(`1.5`)} {
			if err := p.Add(id, i+1); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	for _, tt := range tests {
		p := fill()
		sent, v, m, err := p.TakeJSONMatch([]byte(tt.raw))
		if m != tt.want || sent != tt.sent {
			t.Errorf("TakeJSONMatch(%#q) = %v, %d, %v, %v; want %v, %v", tt.raw, sent, v, m, err, tt.sent, tt.want)
		}
		wantLen := 3
		if tt.want == rpcid.MatchTaken {
			wantLen = 2
			if v == 0 {
				t.Errorf("TakeJSONMatch(%#q): value %d, want the request's", tt.raw, v)
			}
		} else if v != 0 {
			t.Errorf("TakeJSONMatch(%#q): value %d, want 0", tt.raw, v)
		}
		if p.Len() != wantLen {
			t.Errorf("TakeJSONMatch(%#q) left Len %d, want %d", tt.raw, p.Len(), wantLen)
		}
		if tt.want == rpcid.MatchInvalidID {
			var e *rpcid.Error
			_, parseErr := rpcid.Parse([]byte(tt.raw))
			if !errors.As(err, &e) || !errors.Is(err, tt.sentinel) || e.Func != "Pending.TakeJSONMatch" || e.Offset != parseErr.(*rpcid.Error).Offset {
				t.Errorf("TakeJSONMatch(%#q) error = %#v; want Func Pending.TakeJSONMatch, %v at the offset Parse gives (%v)", tt.raw, err, tt.sentinel, parseErr)
			}
		} else if err != nil {
			t.Errorf("TakeJSONMatch(%#q) error = %v, want nil for %v", tt.raw, err, tt.want)
		}
		// TakeJSON says only whether it took.
		q := fill()
		sent2, v2, ok := q.TakeJSON([]byte(tt.raw))
		if ok != (tt.want == rpcid.MatchTaken) || sent2 != sent || v2 != v || q.Len() != wantLen {
			t.Errorf("TakeJSON(%#q) = %v, %d, %v with Len %d; TakeJSONMatch gave %v, %d, %v", tt.raw, sent2, v2, ok, q.Len(), sent, v, m)
		}
	}
	for m, want := range map[rpcid.Match]string{0: "Match(0)", rpcid.MatchTaken: "taken", rpcid.MatchNotPending: "not pending", rpcid.MatchNullID: "null id", rpcid.MatchInvalidID: "invalid id", 9: "Match(9)"} {
		if got := m.String(); got != want {
			t.Errorf("Match(%d).String() = %q, want %q", m, got, want)
		}
	}
}
