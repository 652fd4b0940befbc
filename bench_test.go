package rpcid_test

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpcid/rpcid"
)

// Sinks keep the compiler from optimising benchmarked calls away.
var (
	sinkID    rpcid.ID
	sinkKey   rpcid.Key
	sinkBool  bool
	sinkInt   int64
	sinkAny   any
	sinkBytes []byte
	sinkErr   error
)

// The inputs of the side-by-side benchmarks: the same digits as a JSON
// number, as a JSON string, and bare for strconv.
var (
	intJSON       = []byte(`1234567`)
	intDigits     = "1234567"
	numStringJSON = []byte(`"1234567"`)
	stringJSON    = []byte(`"req-7f3a9c"`)
	string64JSON  = []byte(`"` + strings.Repeat("0123456789abcdef", 4) + `"`)
	numberJSON    = []byte(`1.5`)
	nullJSON      = []byte(`null`)
)

// BenchmarkIntID compares Parse of an integer id with strconv.ParseInt on the
// same digits and with encoding/json into any (at most 0.45x of
// strconv, at least 40x faster than encoding/json), as separate benchmarks
// and interleaved (see benchInterleaved).
func BenchmarkIntID(b *testing.B) { benchBeside(b, intJSON) }

// BenchmarkNumericStringID is BenchmarkIntID for the id "1234567" (target:
// at most 0.8x of strconv.ParseInt on the digits).
func BenchmarkNumericStringID(b *testing.B) { benchBeside(b, numStringJSON) }

// benchBeside runs Parse of in beside strconv.ParseInt of intDigits and
// encoding/json.Unmarshal of in into any, so one run shows the ratios.
func benchBeside(b *testing.B, in []byte) {
	b.Run("rpcid.Parse", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkID, sinkErr = rpcid.Parse(in)
		}
	})
	b.Run("strconv.ParseInt", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkInt, sinkErr = strconv.ParseInt(intDigits, 10, 64)
		}
	})
	b.Run("json.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			sinkErr = json.Unmarshal(in, &sinkAny)
		}
	})
	b.Run("interleaved", func(b *testing.B) { benchInterleaved(b, in) })
}

// benchInterleaved runs the three calls of benchBeside in turns: a turn of
// Parse, a turn of strconv.ParseInt and a turn of json.Unmarshal, again and
// again, so that all three meet the same load on a shared machine, where
// separate benchmarks a second apart do not. A turn is 1024 calls (32 of
// json.Unmarshal, which is slower), so that reading the clock, which takes
// about 200 ns on some virtual machines, adds little to each call; one op is
// one Parse call with its share of the others. It reports each call's median
// time per turn (Parse-ns, ParseInt-ns, Unmarshal-ns, per call) and their
// ratios: ParseInt-x is Parse's time as a fraction of strconv.ParseInt's,
// Unmarshal-x how many times slower encoding/json is than Parse. Medians,
// unlike sums, are not moved by a turn that the scheduler interrupted.
func benchInterleaved(b *testing.B, in []byte) {
	const turn, jsonTurn = 1024, 32
	var tp, ts, tj []time.Duration
	// Results go to locals, stored once at the end: json.Unmarshal keeps the
	// garbage collector busy, and a store of a pointer to a global while it
	// marks takes a write barrier that would be charged to the call.
	var (
		id  rpcid.ID
		n   int64
		err error
	)
	for i := 0; i < b.N; i += turn {
		t0 := time.Now()
		for range turn {
			id, err = rpcid.Parse(in)
		}
		t1 := time.Now()
		for range turn {
			n, err = strconv.ParseInt(intDigits, 10, 64)
		}
		t2 := time.Now()
		for range jsonTurn {
			sinkErr = json.Unmarshal(in, &sinkAny)
		}
		t3 := time.Now()
		tp, ts, tj = append(tp, t1.Sub(t0)), append(ts, t2.Sub(t1)), append(tj, t3.Sub(t2))
	}
	sinkID, sinkInt, sinkErr = id, n, err
	p, s, j := medianPerCall(tp, turn), medianPerCall(ts, turn), medianPerCall(tj, jsonTurn)
	b.ReportMetric(p, "Parse-ns")
	b.ReportMetric(s, "ParseInt-ns")
	b.ReportMetric(j, "Unmarshal-ns")
	b.ReportMetric(p/s, "ParseInt-x")
	b.ReportMetric(j/p, "Unmarshal-x")
}

// BenchmarkParse covers the other kinds.
func BenchmarkParse(b *testing.B) {
	for _, bm := range []struct {
		name string
		in   []byte
	}{
		{"null", nullJSON},
		{"string", stringJSON},
		{"string64", string64JSON},
		{"number", numberJSON},
		{"maxint64", []byte(`9223372036854775807`)},
		{"int-exponent", []byte(`1.234567e6`)},
		{"escaped", []byte(`"req-\u00e9\n"`)},
	} {
		b.Run(bm.name+"/rpcid.Parse", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkID, sinkErr = rpcid.Parse(bm.in)
			}
		})
		b.Run(bm.name+"/json.Unmarshal", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkErr = json.Unmarshal(bm.in, &sinkAny)
			}
		})
		b.Run(bm.name+"/interleaved", func(b *testing.B) { benchParseInterleaved(b, bm.in) })
	}
}

// benchParseInterleaved is benchInterleaved without strconv: Parse and
// json.Unmarshal of in, in turns of 256 and 32 calls. It reports Parse-ns,
// Unmarshal-ns and Unmarshal-x.
func benchParseInterleaved(b *testing.B, in []byte) {
	const turn, jsonTurn = 256, 32
	var tp, tj []time.Duration
	var (
		id  rpcid.ID
		err error
	)
	for i := 0; i < b.N; i += turn {
		t0 := time.Now()
		for range turn {
			id, err = rpcid.Parse(in)
		}
		t1 := time.Now()
		for range jsonTurn {
			err = json.Unmarshal(in, &sinkAny)
		}
		t2 := time.Now()
		tp, tj = append(tp, t1.Sub(t0)), append(tj, t2.Sub(t1))
	}
	sinkID, sinkErr = id, err
	p, j := medianPerCall(tp, turn), medianPerCall(tj, jsonTurn)
	b.ReportMetric(p, "Parse-ns")
	b.ReportMetric(j, "Unmarshal-ns")
	b.ReportMetric(j/p, "Unmarshal-x")
}

// medianPerCall returns the median of d, the times of turns of calls, per
// call in nanoseconds. It sorts d.
func medianPerCall(d []time.Duration, calls int) float64 {
	slices.Sort(d)
	return float64(d[len(d)/2]) / float64(calls)
}

func BenchmarkEqual(b *testing.B) {
	for _, bm := range []struct {
		name string
		x, y rpcid.ID
	}{
		{"int-int", rpcid.Int(1234567), rpcid.Int(1234567)},
		{"int-numstring", rpcid.Int(1234567), rpcid.String("1234567")},
		{"string-string", rpcid.String("req-7f3a9c"), rpcid.String("req-7f3a9c")},
		{"number-number", rpcid.MustParse(`1.5`), rpcid.MustParse(`15e-1`)},
		{"int-string", rpcid.Int(1), rpcid.String("01")},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkBool = rpcid.Equal(bm.x, bm.y)
			}
		})
	}
}

func BenchmarkKey(b *testing.B) {
	for _, bm := range []struct {
		name string
		x    rpcid.ID
	}{
		{"int", rpcid.Int(1234567)},
		{"numstring", rpcid.String("1234567")},
		{"string", rpcid.String("req-7f3a9c")},
		{"number", rpcid.MustParse(`1.5`)},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkKey = bm.x.Key()
			}
		})
	}
}

func BenchmarkAppendJSON(b *testing.B) {
	buf := make([]byte, 0, 128)
	for _, bm := range []struct {
		name string
		x    rpcid.ID
	}{
		{"int", rpcid.Int(1234567)},
		{"numstring", rpcid.String("1234567")},
		{"string", rpcid.String("req-7f3a9c")},
		{"escaped", rpcid.String("req\t\"7f3a9c\"\n")},
		{"number", rpcid.MustParse(`1.5`)},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				sinkBytes = bm.x.AppendJSON(buf[:0])
			}
		})
	}
}

// BenchmarkTakeJSON measures one Add and one TakeJSON per iteration against
// the same work done with a map[int64] and strconv.ParseInt (within
// 1.5x).
func BenchmarkTakeJSON(b *testing.B) {
	for _, bm := range []struct {
		name     string
		sent     rpcid.ID
		received []byte
	}{
		{"int", rpcid.Int(1234567), intJSON},
		{"numstring", rpcid.Int(1234567), numStringJSON},
		{"string", rpcid.String("req-7f3a9c"), stringJSON},
		{"string64", rpcid.MustParse(string(string64JSON)), string64JSON},
		{"number", rpcid.MustParse(`15e-1`), numberJSON},
	} {
		b.Run(bm.name+"/rpcid.Pending", func(b *testing.B) {
			var p rpcid.Pending[int]
			fillPending(&p)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				_ = p.Add(bm.sent, i)
				_, _, sinkBool = p.TakeJSON(bm.received)
			}
		})
	}
	b.Run("int/interleaved", func(b *testing.B) {
		// Both of the int rows above in turns of 256, as benchInterleaved
		// does: Pending-ns, Map-ns and their ratio Map-x.
		const turn = 256
		var p rpcid.Pending[int]
		fillPending(&p)
		m := map[int64]pendingValue{}
		for i := range 100 {
			m[int64(i)] = pendingValue{rpcid.Int(int64(i)), i}
		}
		var tp, tm []time.Duration
		ok := false
		for i := 0; i < b.N; i += turn {
			t0 := time.Now()
			for j := range turn {
				_ = p.Add(rpcid.Int(1234567), j)
				_, _, ok = p.TakeJSON(intJSON)
			}
			t1 := time.Now()
			for j := range turn {
				m[1234567] = pendingValue{rpcid.Int(1234567), j}
				n, err := strconv.ParseInt(string(intJSON), 10, 64)
				if err == nil {
					_, ok = m[n]
					delete(m, n)
				}
			}
			t2 := time.Now()
			tp, tm = append(tp, t1.Sub(t0)), append(tm, t2.Sub(t1))
		}
		sinkBool = ok
		pn, mn := medianPerCall(tp, turn), medianPerCall(tm, turn)
		b.ReportMetric(pn, "Pending-ns")
		b.ReportMetric(mn, "Map-ns")
		b.ReportMetric(pn/mn, "Map-x")
	})
	b.Run("int/map-int64+strconv", func(b *testing.B) {
		m := map[int64]pendingValue{}
		for i := range 100 {
			m[int64(i)] = pendingValue{rpcid.Int(int64(i)), i}
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			m[1234567] = pendingValue{rpcid.Int(1234567), i}
			n, err := strconv.ParseInt(string(intJSON), 10, 64)
			if err == nil {
				_, sinkBool = m[n]
				delete(m, n)
			}
		}
	})
}

// fillPending adds 100 other requests of each kind, as a busy client has in
// flight, so that the benchmarked Add and TakeJSON do not empty the table.
func fillPending(p *rpcid.Pending[int]) {
	for i := range 100 {
		for _, id := range []rpcid.ID{rpcid.Int(int64(i)), rpcid.String("other-" + strconv.Itoa(i)), rpcid.MustParse(strconv.Itoa(i) + ".25")} {
			if err := p.Add(id, i); err != nil {
				panic(err)
			}
		}
	}
}

type pendingValue struct {
	id rpcid.ID
	v  int
}

// BenchmarkLinear shows that cost per byte stays flat as ids grow: MB/s
// should be about the same for every size of one shape.
func BenchmarkLinear(b *testing.B) {
	for _, size := range []int{10, 1 << 10, 1 << 20} {
		plain := []byte(`"` + strings.Repeat("a", size) + `"`)
		escaped := []byte(`"` + strings.Repeat(`\n`, size/2) + `"`)
		digits := []byte(`1.` + strings.Repeat("7", size))
		exponent := []byte(`1` + strings.Repeat("0", size) + `e-` + strconv.Itoa(size))
		longExp := []byte(`1e` + strings.Repeat("9", size))
		unicode := []byte(`"` + strings.Repeat(`\ud83d\ude00`, size/12+1) + `"`)
		nested := []byte(strings.Repeat("[", size/2) + strings.Repeat("]", size/2))
		for _, bm := range []struct {
			name string
			in   []byte
		}{
			{"string", plain},
			{"escaped", escaped},
			{"surrogate-pairs", unicode},
			{"fraction", digits},
			{"trailing-zeros", exponent},
			{"exponent-digits", longExp}, // refused with ErrRange
			{"nested-arrays", nested},    // refused with ErrType
		} {
			b.Run(bm.name+"/"+strconv.Itoa(size), func(b *testing.B) {
				b.SetBytes(int64(len(bm.in)))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					sinkID, sinkErr = rpcid.Parse(bm.in)
				}
			})
		}
	}
}
