package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"

	mcp "github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/rpcid/rpcid"
	segjson "github.com/segmentio/encoding/json"
	sg "github.com/sourcegraph/jsonrpc2"
)

// tri is whether a response id settles a given pending request.
type tri uint8

const (
	na  tri = iota // the library cannot express that pending id
	no             // it does not settle it
	yes            // it settles it
)

func (m tri) String() string { return [...]string{"-", "N", "M"}[m] }

// outcome is what one library does with one wire id: what it decodes the
// id to and which of three pending requests the response then settles: the
// request with id 1, the one with id 0 and the one whose id is the exact
// value on the wire, written with the library's own constructor.
type outcome[T comparable] struct {
	val   T    // decoded id; the zero T when err
	err   bool // decoding fails: the response is dropped or, for sourcegraph, the connection closed
	exact *T   // the library's id for the wire value; nil when it cannot express one
	m1    tri  // settles the request with id 1
	m0    tri  // settles the request with id 0
	mx    tri  // settles the request with id *exact
}

// peer is one library under test: how it decodes an id and how it decides
// that a response id belongs to a pending request.
type peer[T comparable] struct {
	name   string
	decode func(raw []byte) (T, error)
	one    T // the library's id 1
	zero   T // the library's id 0
	// settles reports whether the response with raw id (decoded to got)
	// settles the request sent with id pending, by the library's own
	// matching mechanism.
	settles func(raw []byte, got, pending T) bool
	equal   func(a, b T) bool
	show    func(T) string
}

// check asserts o for raw and returns the table cell describing it.
func (p peer[T]) check(t *testing.T, raw string, o outcome[T]) string {
	t.Helper()
	got, err := p.decode([]byte(raw))
	if (err != nil) != o.err {
		t.Errorf("%s: decode %s: error = %v, want error %v", p.name, raw, err, o.err)
		return "?"
	}
	if err == nil && !p.equal(got, o.val) {
		t.Errorf("%s: decode %s = %s, want %s", p.name, raw, p.show(got), p.show(o.val))
	}
	match := func(pending *T) tri {
		switch {
		case pending == nil:
			return na
		case err != nil:
			return no
		case p.settles([]byte(raw), got, *pending):
			return yes
		}
		return no
	}
	m1, m0, mx := match(&p.one), match(&p.zero), match(o.exact)
	if m1 != o.m1 || m0 != o.m0 || mx != o.mx {
		t.Errorf("%s: response id %s settles (1, 0, exact) = (%v, %v, %v), want (%v, %v, %v)",
			p.name, raw, m1, m0, mx, o.m1, o.m0, o.mx)
	}
	cell := "error"
	if err == nil {
		cell = p.show(got)
	}
	return fmt.Sprintf("%s [%v %v %v]", cell, m1, m0, mx)
}

var rpcidPeer = peer[rpcid.ID]{
	name:   "rpcid",
	decode: rpcid.Parse,
	one:    rpcid.Int(1),
	zero:   rpcid.Int(0),
	settles: func(raw []byte, _, pending rpcid.ID) bool {
		var p rpcid.Pending[int]
		if p.Add(pending, 1) != nil {
			return false
		}
		_, _, ok := p.TakeJSON(raw)
		return ok
	},
	equal: func(a, b rpcid.ID) bool { return a == b },
	show:  func(id rpcid.ID) string { return id.Kind().String() + " " + id.String() },
}

// gosdkPeer decodes with DecodeMessage, the real path. go-sdk keys its
// pending calls by jsonrpc.ID, a struct holding one any, in a map, so
// matching is == on that any, which ID.Raw returns: the peer's values are
// those (int64 for its Int64ID, string for StringID, nil for no id), since
// the jsonrpc package exports no constructor that keeps an int64 exact
// (MakeID takes float64).
var gosdkPeer = peer[any]{
	name: "go-sdk",
	decode: func(raw []byte) (any, error) {
		id, err := gosdkMessageID(raw)
		return id.Raw(), err
	},
	one:     int64(1),
	zero:    int64(0),
	settles: func(_ []byte, got, pending any) bool { return got == pending },
	equal:   func(a, b any) bool { return a == b },
	show:    showAny,
}

// mcpgoPeer: mcp-go's stdio and SSE client transports key pending requests
// by RequestId.String().
var mcpgoPeer = peer[mcp.RequestId]{
	name:    "mcp-go",
	decode:  mcpgoID,
	one:     mcp.NewRequestId(int64(1)),
	zero:    mcp.NewRequestId(int64(0)),
	settles: func(_ []byte, got, pending mcp.RequestId) bool { return got.String() == pending.String() },
	equal:   func(a, b mcp.RequestId) bool { return a == b },
	show:    func(id mcp.RequestId) string { return showAny(id.Value()) },
}

// sgPeer: sourcegraph/jsonrpc2 keys pending calls by ID in a map.
var sgPeer = peer[sg.ID]{
	name:    "sourcegraph",
	decode:  sgID,
	one:     sg.ID{Num: 1},
	zero:    sg.ID{Num: 0},
	settles: func(_ []byte, got, pending sg.ID) bool { return got == pending },
	equal:   func(a, b sg.ID) bool { return a == b },
	show: func(id sg.ID) string {
		if id.IsString {
			return fmt.Sprintf("Str %q", id.Str)
		}
		return fmt.Sprintf("Num %d", id.Num)
	},
}

func ptr[T any](v T) *T { return &v }

// overflowRow reports the go-sdk and mcp-go outcomes for the wire id
// 9223372036854775807, which both read as float64 2^63 and convert to
// int64: a conversion whose result Go leaves to the implementation when
// the value does not fit. amd64 gives math.MinInt64, arm64 saturates to
// math.MaxInt64. go-sdk keeps that int64; mcp-go keeps it only when it
// converts back to the same float64, so on amd64 its id stays float64
// 2^63. ok is false on other architectures.
func overflowRow() (gosdk outcome[any], mcpgo outcome[mcp.RequestId], ok bool) {
	gx := ptr[any](int64(math.MaxInt64))
	mx := ptr(mcp.NewRequestId(int64(math.MaxInt64)))
	switch runtime.GOARCH {
	case "amd64":
		return outcome[any]{val: int64(math.MinInt64), exact: gx, m1: no, m0: no, mx: no},
			outcome[mcp.RequestId]{val: mcp.NewRequestId(float64(1 << 63)), exact: mx, m1: no, m0: no, mx: no},
			true
	case "arm64":
		return outcome[any]{val: int64(math.MaxInt64), exact: gx, m1: no, m0: no, mx: yes},
			outcome[mcp.RequestId]{val: mcp.NewRequestId(int64(math.MaxInt64)), exact: mx, m1: no, m0: no, mx: yes},
			true
	}
	return outcome[any]{}, outcome[mcp.RequestId]{}, false
}

// TestPeerIDTable documents, by asserting it, what each library does today
// with ids whose handling differs between libraries. The pending requests
// are 1, 0 and the exact wire value (see outcome); rpcid's column is the
// rule of its package documentation, the others are current behaviour of
// the versions in go.mod (a failure here after an upgrade means a peer
// changed). The table is logged; run with -v to see it.
func TestPeerIDTable(t *testing.T) {
	type row struct {
		wire  string
		rpcid outcome[rpcid.ID]
		gosdk outcome[any]
		mcpgo outcome[mcp.RequestId]
		sg    outcome[sg.ID]
		any   any // encoding/json into any
	}
	gOverflow, mOverflow, overflowKnown := overflowRow()
	rows := []row{
		{
			wire:  `"1"`,
			rpcid: outcome[rpcid.ID]{val: rpcid.String("1"), exact: ptr(rpcid.String("1")), m1: yes, m0: no, mx: yes},
			gosdk: outcome[any]{val: "1", exact: ptr[any]("1"), m1: no, m0: no, mx: yes},
			mcpgo: outcome[mcp.RequestId]{val: mcp.NewRequestId("1"), exact: ptr(mcp.NewRequestId("1")), m1: no, m0: no, mx: yes},
			sg:    outcome[sg.ID]{val: sg.ID{Str: "1", IsString: true}, exact: &sg.ID{Str: "1", IsString: true}, m1: no, m0: no, mx: yes},
			any:   "1",
		},
		{
			wire:  `1`,
			rpcid: outcome[rpcid.ID]{val: rpcid.Int(1), exact: ptr(rpcid.Int(1)), m1: yes, m0: no, mx: yes},
			gosdk: outcome[any]{val: int64(1), exact: ptr[any](int64(1)), m1: yes, m0: no, mx: yes},
			mcpgo: outcome[mcp.RequestId]{val: mcp.NewRequestId(int64(1)), exact: ptr(mcp.NewRequestId(int64(1))), m1: yes, m0: no, mx: yes},
			sg:    outcome[sg.ID]{val: sg.ID{Num: 1}, exact: &sg.ID{Num: 1}, m1: yes, m0: no, mx: yes},
			any:   float64(1),
		},
		{
			// go-sdk truncates to 1 and settles request 1; sourcegraph
			// fails to decode (and closes the connection); go-sdk and
			// sourcegraph cannot send a fractional id.
			wire:  `1.5`,
			rpcid: outcome[rpcid.ID]{val: rpcid.MustParse("1.5"), exact: ptr(rpcid.MustParse("15e-1")), m1: no, m0: no, mx: yes},
			gosdk: outcome[any]{val: int64(1), m1: yes, m0: no, mx: na},
			mcpgo: outcome[mcp.RequestId]{val: mcp.NewRequestId(1.5), exact: ptr(mcp.NewRequestId(1.5)), m1: no, m0: no, mx: yes},
			sg:    outcome[sg.ID]{err: true, m1: no, m0: no, mx: na},
			any:   1.5,
		},
		{
			// 2^53+1: go-sdk and mcp-go round to 2^53 through float64, so
			// they miss the request and would settle request 2^53 instead.
			wire:  `9007199254740993`,
			rpcid: outcome[rpcid.ID]{val: rpcid.Int(9007199254740993), exact: ptr(rpcid.Int(9007199254740993)), m1: no, m0: no, mx: yes},
			gosdk: outcome[any]{val: int64(9007199254740992), exact: ptr[any](int64(9007199254740993)), m1: no, m0: no, mx: no},
			mcpgo: outcome[mcp.RequestId]{val: mcp.NewRequestId(int64(9007199254740992)), exact: ptr(mcp.NewRequestId(int64(9007199254740993))), m1: no, m0: no, mx: no},
			sg:    outcome[sg.ID]{val: sg.ID{Num: 9007199254740993}, exact: &sg.ID{Num: 9007199254740993}, m1: no, m0: no, mx: yes},
			any:   float64(9007199254740992),
		},
		{
			wire:  `9223372036854775807`,
			rpcid: outcome[rpcid.ID]{val: rpcid.Int(math.MaxInt64), exact: ptr(rpcid.Int(math.MaxInt64)), m1: no, m0: no, mx: yes},
			gosdk: gOverflow,
			mcpgo: mOverflow,
			sg:    outcome[sg.ID]{val: sg.ID{Num: math.MaxInt64}, exact: &sg.ID{Num: math.MaxInt64}, m1: no, m0: no, mx: yes},
			any:   float64(1 << 63),
		},
		{
			// The number -0 is the integer 0. sourcegraph reads ids as
			// uint64 or string and fails on it.
			wire:  `-0`,
			rpcid: outcome[rpcid.ID]{val: rpcid.Int(0), exact: ptr(rpcid.Int(0)), m1: no, m0: yes, mx: yes},
			gosdk: outcome[any]{val: int64(0), exact: ptr[any](int64(0)), m1: no, m0: yes, mx: yes},
			mcpgo: outcome[mcp.RequestId]{val: mcp.NewRequestId(int64(0)), exact: ptr(mcp.NewRequestId(int64(0))), m1: no, m0: yes, mx: yes},
			sg:    outcome[sg.ID]{err: true, exact: &sg.ID{Num: 0}, m1: no, m0: no, mx: no},
			any:   math.Copysign(0, -1),
		},
		{
			wire:  `1.0`,
			rpcid: outcome[rpcid.ID]{val: rpcid.Int(1), exact: ptr(rpcid.Int(1)), m1: yes, m0: no, mx: yes},
			gosdk: outcome[any]{val: int64(1), exact: ptr[any](int64(1)), m1: yes, m0: no, mx: yes},
			mcpgo: outcome[mcp.RequestId]{val: mcp.NewRequestId(int64(1)), exact: ptr(mcp.NewRequestId(int64(1))), m1: yes, m0: no, mx: yes},
			sg:    outcome[sg.ID]{err: true, exact: &sg.ID{Num: 1}, m1: no, m0: no, mx: no},
			any:   float64(1),
		},
		{
			// No request has a null id. go-sdk rejects a response without
			// a valid id; sourcegraph reads null as 0 and settles request 0.
			wire:  `null`,
			rpcid: outcome[rpcid.ID]{val: rpcid.Null(), m1: no, m0: no, mx: na},
			gosdk: outcome[any]{err: true, m1: no, m0: no, mx: na},
			mcpgo: outcome[mcp.RequestId]{val: mcp.NewRequestId(nil), m1: no, m0: no, mx: na},
			sg:    outcome[sg.ID]{val: sg.ID{Num: 0}, m1: no, m0: yes, mx: na},
			any:   nil,
		},
	}

	var table strings.Builder
	const format = "%-19s | %-35s | %-34s | %-37s | %-33s | %s\n"
	fmt.Fprintf(&table, "\n"+format,
		"wire id", "rpcid", "go-sdk", "mcp-go", "sourcegraph", "encoding/json any")
	for _, r := range rows {
		t.Run(r.wire, func(t *testing.T) {
			cells := []string{
				rpcidPeer.check(t, r.wire, r.rpcid),
				"(not asserted on " + runtime.GOARCH + ")",
				"(not asserted on " + runtime.GOARCH + ")",
				sgPeer.check(t, r.wire, r.sg),
			}
			if r.wire != `9223372036854775807` || overflowKnown {
				cells[1] = gosdkPeer.check(t, r.wire, r.gosdk)
				cells[2] = mcpgoPeer.check(t, r.wire, r.mcpgo)
			}
			v, err := anyID([]byte(r.wire))
			if err != nil {
				t.Errorf("encoding/json: decode %s: %v", r.wire, err)
			}
			if !sameAny(v, r.any) {
				t.Errorf("encoding/json: decode %s = %T %v, want %T %v", r.wire, v, v, r.any, r.any)
			}
			fmt.Fprintf(&table, format, r.wire, cells[0], cells[1], cells[2], cells[3], showAny(v))
		})
	}
	t.Log("decoded id [settles pending request 1, request 0, request with the exact wire value]:" +
		" M yes, N no, - that library cannot send such an id" + table.String())
}

// showAny describes a decoded Go value with its type, quoting strings.
func showAny(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("string %q", s)
	}
	return fmt.Sprintf("%T %v", v, v)
}

// sameAny is == for the values encoding/json decodes into an any, except
// that float64s must have the same bits (so -0 differs from 0).
func sameAny(a, b any) bool {
	fa, aok := a.(float64)
	fb, bok := b.(float64)
	if aok && bok {
		return math.Float64bits(fa) == math.Float64bits(fb)
	}
	return a == b
}

// TestBenchInputs asserts what every implementation in BenchmarkID and
// BenchmarkMessage decodes each benchmark input to, so that the timings
// are read knowing which are error paths and which give wrong values.
func TestBenchInputs(t *testing.T) {
	bigF := float64(1 << 63) // 9223372036854775807 read as float64
	want := map[string]struct {
		rpcid rpcid.ID
		gosdk any // jsonrpc.ID.Raw(), or a marker
		mcpgo any // mcp.RequestId, or a marker
		sg    any // sg.ID, or a marker
		any   any
	}{
		"int":    {rpcid.Int(1234567), int64(1234567), mcp.NewRequestId(int64(1234567)), sg.ID{Num: 1234567}, float64(1234567)},
		"numstr": {rpcid.String("1234567"), "1234567", mcp.NewRequestId("1234567"), sg.ID{Str: "1234567", IsString: true}, "1234567"},
		"str":    {rpcid.String("req-7f3a9c"), "req-7f3a9c", mcp.NewRequestId("req-7f3a9c"), sg.ID{Str: "req-7f3a9c", IsString: true}, "req-7f3a9c"},
		"str64":  {rpcid.String(str64), str64, mcp.NewRequestId(str64), sg.ID{Str: str64, IsString: true}, str64},
		"frac":   {rpcid.MustParse("1.5"), int64(1), mcp.NewRequestId(1.5), errDecode, 1.5},
		"bigint": {rpcid.Int(math.MaxInt64), archDependent, archDependent, sg.ID{Num: math.MaxInt64}, bigF},
		"null":   {rpcid.Null(), nil, mcp.NewRequestId(nil), sg.ID{Num: 0}, nil},
	}
	if len(want) != len(inputs) {
		t.Fatalf("want has %d inputs, inputs has %d", len(want), len(inputs))
	}
	for _, in := range inputs {
		w, ok := want[in.name]
		if !ok {
			t.Fatalf("no expectation for input %s", in.name)
		}
		raw := []byte(in.raw)
		t.Run(in.name, func(t *testing.T) {
			if id, err := rpcid.Parse(raw); err != nil || id != w.rpcid {
				t.Errorf("rpcid.Parse(%s) = %v, %v; want %v, nil", raw, id, err, w.rpcid)
			}
			if w.rpcid.Kind() != rpcid.KindNull {
				var p rpcid.Pending[int]
				if err := p.Add(w.rpcid, 7); err != nil {
					t.Fatalf("Add(%v): %v", w.rpcid, err)
				}
				if sent, v, ok := p.TakeJSON(raw); !ok || sent != w.rpcid || v != 7 {
					t.Errorf("TakeJSON(%s) = %v, %d, %v; want %v, 7, true", raw, sent, v, ok, w.rpcid)
				}
			} else {
				var p rpcid.Pending[int]
				if _, _, ok := p.TakeJSON(raw); ok {
					t.Errorf("TakeJSON(%s) on an empty table = true", raw)
				}
			}
			if w.gosdk != archDependent {
				checkPeer(t, "go-sdk MakeID path", raw, w.gosdk, gosdkRaw)
			}
			if w.mcpgo != archDependent {
				checkPeer(t, "mcp-go RequestId", raw, w.mcpgo, mcpgoID)
			}
			checkPeer(t, "sourcegraph ID", raw, w.sg, sgID)
			if v, err := anyID(raw); err != nil || !sameAny(v, w.any) {
				t.Errorf("encoding/json any: %s = %T %v, %v; want %T %v", raw, v, v, err, w.any, w.any)
			}

			// Whole messages: go-sdk's DecodeMessage agrees with its id
			// path except that it rejects a response with a null id; the
			// rpcid struct decodes agree with Parse under both decoders.
			msg := message(in.raw)
			m, err := jsonrpc.DecodeMessage(msg)
			if in.name == "null" {
				if err == nil {
					t.Errorf("DecodeMessage(%s) = %v, want an error", msg, m)
				}
			} else if w.gosdk != archDependent {
				if r, ok := m.(*jsonrpc.Response); err != nil || !ok || r.ID.Raw() != w.gosdk {
					t.Errorf("DecodeMessage(%s) = %#v, %v; want a *Response with id %v", msg, m, err, w.gosdk)
				}
			}
			var am anyWireMsg
			if err := segjson.Unmarshal(msg, &am); err != nil {
				t.Errorf("segmentio into anyWireMsg: %s: %v", msg, err)
			} else if id, err := jsonrpc.MakeID(am.ID); w.gosdk != archDependent && (err != nil || id.Raw() != w.gosdk) {
				t.Errorf("segmentio into anyWireMsg + MakeID: %s = %v, %v; want %v", msg, id.Raw(), err, w.gosdk)
			}
			for _, dec := range []struct {
				name      string
				unmarshal func([]byte, any) error
			}{{"segmentio", segjson.Unmarshal}, {"encoding/json", json.Unmarshal}} {
				var wm wireMsg
				if err := dec.unmarshal(msg, &wm); err != nil || wm.ID != w.rpcid || string(wm.Result) != "{}" {
					t.Errorf("%s into wireMsg: %s = id %v result %s, %v; want id %v result {}", dec.name, msg, wm.ID, wm.Result, err, w.rpcid)
				}
			}
		})
	}
}

// Markers in TestBenchInputs: the decode fails, or its result depends on
// GOARCH (asserted in TestPeerIDTable instead).
var (
	errDecode     = new(int)
	archDependent = new(int)
)

func checkPeer[T comparable](t *testing.T, name string, raw []byte, want any, decode func([]byte) (T, error)) {
	t.Helper()
	got, err := decode(raw)
	if want == errDecode {
		if err == nil {
			t.Errorf("%s: %s = %v, want an error", name, raw, got)
		}
		return
	}
	if err != nil || any(got) != want {
		t.Errorf("%s: %s = %v, %v; want %v, nil", name, raw, got, err, want)
	}
}

// gosdkRaw is gosdkID returning the ID's value, which is what == on IDs
// compares.
func gosdkRaw(raw []byte) (any, error) {
	id, err := gosdkID(raw)
	return id.Raw(), err
}
