package rpcid_test

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/rpcid/rpcid"
)

// skipIfAllocsUnreliable skips allocation tests in builds where the
// compiler's escape analysis is not the one users get: the race detector
// and builds with optimisation or inlining turned off.
func skipIfAllocsUnreliable(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("allocation counts are not checked in -short mode")
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "-race" && s.Value == "true":
			t.Skip("allocation counts differ under the race detector")
		case s.Key == "-gcflags" && (strings.Contains(s.Value, "-N") || strings.Contains(s.Value, "-l")):
			t.Skip("allocation counts differ with optimisation or inlining off")
		}
	}
}

// TestNoAllocs holds the allocation promises of the doc comments and issue 7.
// Strings longer than 32 bytes are included on purpose: Go's 32-byte stack
// buffer for string conversions hides allocations below that length.
func TestNoAllocs(t *testing.T) {
	skipIfAllocsUnreliable(t)
	long := strings.Repeat("0123456789abcdef", 4) // 64 bytes
	parses := []struct {
		in     string
		allocs float64
	}{
		{`null`, 0},
		{`0`, 0},
		{`1234567`, 0},
		{`-9223372036854775808`, 0},
		{`9223372036854775807`, 0},
		{` 1234567 `, 0},
		{`1.0`, 0},
		{`12345e-2`, 1},
		{`1.5`, 1},
		{`1e400`, 1},
		{`123456789012345678901234567890`, 1},
		{`"1234567"`, 0},
		{`"-9223372036854775808"`, 0},
		{` "42" `, 0},
		{`"req-1"`, 1},
		{`"` + long + `"`, 1},
		{`"` + long + long + `"`, 1},
		{`"01"`, 1},
		{`"\u00e9` + long + `"`, 1},
		{`"\u0031"`, 1}, // escaped: decoded before it is known to be canonical
	}
	for _, tt := range parses {
		in := []byte(tt.in)
		if got := testing.AllocsPerRun(100, func() { sinkID, sinkErr = rpcid.Parse(in) }); got != tt.allocs {
			t.Errorf("Parse(%s): %v allocs, want %v", tt.in, got, tt.allocs)
		}
		var id rpcid.ID
		if got := testing.AllocsPerRun(100, func() { sinkErr = id.UnmarshalJSON(in) }); got != tt.allocs {
			t.Errorf("UnmarshalJSON(%s): %v allocs, want %v", tt.in, got, tt.allocs)
		}
	}

	ids := []rpcid.ID{
		{}, rpcid.Null(), rpcid.Int(-7), rpcid.String("7"), rpcid.String(long),
		rpcid.String("a\tb\"c" + long), rpcid.MustParse(`1.50`), rpcid.MustParse(`1e400`),
	}
	buf := make([]byte, 0, 1024)
	for _, id := range ids {
		if got := testing.AllocsPerRun(100, func() { sinkKey = id.Key() }); got != 0 {
			t.Errorf("%v.Key(): %v allocs, want 0", id, got)
		}
		if got := testing.AllocsPerRun(100, func() { sinkBool = rpcid.Equal(id, rpcid.String("7")) }); got != 0 {
			t.Errorf("Equal(%v, \"7\"): %v allocs, want 0", id, got)
		}
		if got := testing.AllocsPerRun(100, func() { sinkBytes = id.AppendJSON(buf[:0]) }); got != 0 {
			t.Errorf("%v.AppendJSON into a buffer with room: %v allocs, want 0", id, got)
		}
	}

	// Pending.TakeJSON: nothing for integers, canonical integer strings,
	// unescaped strings (up to and beyond 64 bytes) and numbers with short keys.
	takes := []struct {
		sent     rpcid.ID
		received string
	}{
		{rpcid.Int(1234567), `1234567`},
		{rpcid.Int(1234567), `"1234567"`},
		{rpcid.Int(1234567), ` 1234567.0 `},
		{rpcid.String("1234567"), `1234567`},
		{rpcid.String("req-1"), `"req-1"`},
		{rpcid.String(long), `"` + long + `"`},
		{rpcid.String(long + long), `"` + long + long + `"`},
		{rpcid.MustParse(`1.5`), `15e-1`},
		{rpcid.MustParse(`1e400`), `10e399`},
	}
	for _, tt := range takes {
		var p rpcid.Pending[int]
		fillPending(&p)
		raw := []byte(tt.received)
		got := testing.AllocsPerRun(100, func() {
			if err := p.Add(tt.sent, 1); err != nil {
				t.Fatal(err)
			}
			if _, _, ok := p.TakeJSON(raw); !ok {
				t.Fatalf("TakeJSON(%s) did not find %v", raw, tt.sent)
			}
		})
		if got != 0 {
			t.Errorf("Add(%v)+TakeJSON(%s): %v allocs, want 0", tt.sent, raw, got)
		}
	}
}
