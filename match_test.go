package rpcid_test

import (
	"errors"
	"sort"
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
	if !errors.As(err, &e) || e.Func != "Pending.Add" || e.Input != `"1"` {
		t.Fatalf("Add duplicate = %#v", err)
	}
	if want := `rpcid: Pending.Add "\"1\"": an Equal id is in flight: id already pending`; err.Error() != want {
		t.Errorf("error = %s\nwant    %s", err, want)
	}
}
