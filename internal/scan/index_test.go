package scan

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// indexAlphabet is what random texts for stage 1 are made of: every byte
// that some mask of a block depends on, and bytes of multi-byte UTF-8.
var indexAlphabet = []byte("{}[],: \t\n\r\"\\/bfnrtu0123456789-+.eEaxlsTF\x00\x1f\x7f\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xed\xa0\xff")

// runStage1 runs stage 1 over data from offset 0 in calls of random
// sizes, as refill would (a call's bytes a multiple of 64; the last bytes
// padded with spaces, or, with tail, given as they are, for
// indexBlocksAVX512 to pad), and returns the tokens, whether a call stopped at a
// fault, and the offsets of the blocks where a call stopped for a long
// string (after which it goes on from the next block, still inside the
// string: refill skips the string with str instead).
func runStage1(data []byte, r *rand.Rand, f func([]byte, *indexState, *[maskCap]uint64) (int, int, bool, bool), tail bool) (tokens []int, bad bool, longs []int) {
	var st indexState
	var out [maskCap]uint64
	padded := append(slices.Clone(data), make([]byte, (64-len(data)%64)%64)...)
	for j := len(data); j < len(padded); j++ {
		padded[j] = ' '
	}
	src := padded
	if tail {
		src = data
	}
	for pos := 0; pos < len(src); {
		end := min(len(src), pos+64*(1+r.IntN(6)))
		done, n, b, long := f(src[pos:end], &st, &out)
		tokens = append(tokens, offsets(out[:n], pos)...)
		if b {
			return tokens, true, longs
		}
		pos += done
		if long {
			// Past the block inside the string, as both sides would be
			// at its end but for the escapes it ends in: none here.
			longs = append(longs, pos)
			pos += 64
			st.esc, st.scalar = 0, 0
			copy(st.prev[:], padded[pos-32:pos])
		}
	}
	return tokens, false, longs
}

// offsets returns the offsets of the tokens of masks, the blocks from
// offset start.
func offsets(masks []uint64, start int) []int {
	var ps []int
	for j, m := range masks {
		for k := range 64 {
			if m>>k&1 != 0 {
				ps = append(ps, start+64*j+k)
			}
		}
	}
	return ps
}

// stage1 is a way of running stage 1: indexRef (asm false), or
// indexBlocksAVX2 or indexBlocksAVX512 (asm true, avx512 false or true).
type stage1 struct {
	name        string
	asm, avx512 bool
	f           func([]byte, *indexState, *[maskCap]uint64) (int, int, bool, bool)
}

// stage1s returns the ways of running stage 1 that this processor has.
func stage1s() []stage1 {
	ways := []stage1{{"indexRef", false, false, indexRef}}
	if canIndex {
		ways = append(ways, stage1{"indexBlocksAVX2", true, false, indexBlocksAVX2})
	}
	if canIndex512 {
		ways = append(ways, stage1{"indexBlocksAVX512", true, true, indexBlocksAVX512})
	}
	return ways
}

// useStage1 makes indexBlocks run stage 1 the way w, and returns a
// function that restores the way before.
func useStage1(w stage1) (restore func()) {
	saved := [2]bool{indexAVX2, index512}
	indexAVX2, index512 = w.asm, w.avx512
	return func() { indexAVX2, index512 = saved[0], saved[1] }
}

// TestIndexBlocksAVX2 holds indexBlocksAVX2 and indexBlocksAVX512 to
// indexRef on random texts made of the bytes that matter, called in random
// pieces.
func TestIndexBlocksAVX2(t *testing.T) {
	ways := stage1s()[1:]
	if len(ways) == 0 {
		t.Skip("indexBlocksAVX2 needs AVX2 and PCLMULQDQ")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 20000; iter++ {
		n := 1 + r.IntN(700)
		data := make([]byte, n)
		switch iter % 4 {
		case 0: // any bytes
			for j := range data {
				data[j] = byte(r.Uint32())
			}
		case 1: // the alphabet
			for j := range data {
				data[j] = indexAlphabet[r.IntN(len(indexAlphabet))]
			}
		default: // mostly JSON-like: few escapes, runs of letters
			for j := range data {
				c := indexAlphabet[r.IntN(len(indexAlphabet))]
				if r.IntN(4) > 0 {
					c = "abcdefgh ijk"[r.IntN(12)]
				}
				data[j] = c
			}
		}
		seed := r.Uint64()
		want, wbad, wlong := runStage1(data, rand.New(rand.NewPCG(seed, 0)), indexRef, false)
		for _, w := range ways {
			for _, tail := range []bool{false, w.avx512} {
				got, gbad, glong := runStage1(data, rand.New(rand.NewPCG(seed, 0)), w.f, tail)
				if !slices.Equal(got, want) || gbad != wbad || !slices.Equal(glong, wlong) {
					t.Fatalf("text %q:\n%s (last bytes padded by it: %v) = %v, bad %v, long %v\nindexRef = %v, bad %v, long %v", data, w.name, tail, got, gbad, glong, want, wbad, wlong)
				}
			}
		}
	}
}

// TestIndexState holds the state indexBlocksAVX2 and indexBlocksAVX512
// leave to indexRef's, after calls that end at a block they read, before a
// long string or at a fault.
func TestIndexState(t *testing.T) {
	ways := stage1s()[1:]
	if len(ways) == 0 {
		t.Skip("indexBlocksAVX2 needs AVX2 and PCLMULQDQ")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 20000; iter++ {
		data := make([]byte, 64*(1+r.IntN(4)))
		for j := range data {
			data[j] = indexAlphabet[r.IntN(len(indexAlphabet))]
			if r.IntN(3) == 0 {
				data[j] = 'a'
			}
		}
		var st0 indexState
		st0.esc, st0.inStr, st0.scalar = uint64(r.IntN(2)), -uint64(r.IntN(2)), uint64(r.IntN(2))
		for j := range st0.prev {
			st0.prev[j] = indexAlphabet[r.IntN(len(indexAlphabet))]
		}
		stR := st0
		var outR [maskCap]uint64
		dR, nR, bR, lR := indexRef(data, &stR, &outR)
		for _, w := range ways {
			stA := st0
			var outA [maskCap]uint64
			dA, nA, bA, lA := w.f(data, &stA, &outA)
			if dR != dA || nR != nA || bR != bA || lR != lA || !slices.Equal(outR[:nR], outA[:nA]) || stR != stA {
				t.Fatalf("text %q from %+v:\n%s = %d %v %v %v %+v\nindexRef = %d %v %v %v %+v", data, st0, w.name, dA, outA[:nA], bA, lA, stA, dR, outR[:nR], bR, lR, stR)
			}
		}
	}
}

// TestIndexRef checks indexRef against texts whose tokens are known.
func TestIndexRef(t *testing.T) {
	for _, tc := range []struct {
		text   string
		tokens []int
		bad    bool
	}{
		{`{"a":[1,true,"x\"y",-2.5e3, null]}`, []int{0, 1, 4, 5, 6, 7, 8, 12, 13, 19, 20, 26, 28, 32, 33}, false},
		{`["\u0041\\u", "\\\"", x1 2]`, []int{0, 1, 3, 12, 14, 20, 22, 25, 26}, false},
		{`"` + "\x01" + `"`, nil, true},
		{`"\q"`, nil, true},
		{`x"\q"`, nil, true},
		{"[\"\xc3\"]", nil, true},
		{"[\"\xc3\xa9\"]", []int{0, 1, 5}, false},
		{"{\"a\":\t\r\n1}", []int{0, 1, 4, 8, 9}, false},
	} {
		got, bad, _ := runStage1([]byte(tc.text), rand.New(rand.NewPCG(0, 0)), indexRef, false)
		if bad != tc.bad || !bad && !slices.Equal(got, tc.tokens) {
			t.Errorf("indexRef(%q) = %v, bad %v; want %v, bad %v", tc.text, got, bad, tc.tokens, tc.bad)
		}
	}
}

// scanBoth scans data with and without the structural index (with each
// way of running stage 1 this processor has; with walk in assembly where
// there is one, and in Go) and fails t if they differ in any way:
// the messages, batch or the error.
func scanBoth(t testing.TB, data []byte) {
	t.Helper()
	data = slices.Clip(data) // reading past its end panics, even for a prefix
	saved := [2]bool{useIndex, walkAsm}
	defer func() { useIndex, walkAsm = saved[0], saved[1] }()
	useIndex = false
	want, wb, werr := Scan(nil, data)
	for _, w := range stage1s() {
		restore := useStage1(w)
		for _, walk := range []bool{false, true} {
			useIndex, walkAsm = true, walk && canWalkAsm
			got, gb, gerr := Scan(nil, data)
			if fmt.Sprint(got, gb, gerr) != fmt.Sprint(want, wb, werr) {
				restore()
				t.Fatalf("text %q:\nwith the index (stage 1 %s, walk in assembly %v): %+v %v %v\nwithout: %+v %v %v", data, w.name, walk, got, gb, gerr, want, wb, werr)
			}
		}
		restore()
	}
}

// afterValues puts s in a text where value hands the rest of a container
// to the structural index before s: after indexAfter and more values.
func afterValues(s string) string {
	return `{"id":1,"result":[` + strings.Repeat("0,", indexAfter+8) + s + `]}`
}

// indexSeeds are texts whose containers the structural index takes (in
// afterValues):
// every token, nesting, \u escapes and surrogate pairs, long strings that
// stage 1 leaves to str, UTF-8, whitespace.
var indexSeeds = []string{
	`{"jsonrpc":"2.0","id":"req-7","result":{"tools":[{"name":"tool_1","description":"Reads rows 10 to 19 of a table.","inputSchema":{"type":"object","properties":{"table":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":101}},"required":["table"]},"annotations":{"readOnlyHint":true,"idempotentHint":false}}],"nextCursor":null}}`,
	`{"id":1,"params":[0,-0,1.5,-2e-3,3E+4,true,false,null,"",{},[],[[]],{"a":{}},"\u00e9\ud83d\ude00\n\"\\\/",{"\u0041b":"c"}, "x" , 12 ]}`,
	"{\"result\":{\"text\":\"" + strings.Repeat("caf\u00e9 \\\"q\\\" \\u0041 ", 20) + "\",\"n\":[1,2]},\"id\":3}",
	"{\"result\":[\"" + strings.Repeat("abcdefgh", 20) + "\", \"" + strings.Repeat("\u6771\u4eac", 30) + "\\n\", 7,\n\t{\"k\": \"v\"}\r\n]}",
	`[{"jsonrpc":"2.0","id":1,"params":{"a":[1,2,3],"b":{"c":"d"},"e":"fffffffffffffffffffffffffffffffffffffffffffffffff"}},{"jsonrpc":"2.0","id":2,"params":{"x":[{"y":"z"},{"y":"z"},{"y":"z"},{"y":"z"}]}}]`,
	`{"params":` + strings.Repeat(`[{"a":`, 130) + `1` + strings.Repeat(`}]`, 130) + `}`,
	// A u that starts a literal after a string is no \u escape of it
	// (found by FuzzIndex): after escapes, a pair, none; as a value and
	// as a member name.
	`{"result":[` + strings.Repeat(" ", 100) + `"\ud800\udC00"u00000,"\u0041"u0041,"x"u0041,{"\u0041"u0041:1},{"a"u0041:1},"\\"u0041]}`,
}

// loneSeeds are messages that are the whole text, whose first array or
// object member value the index takes from its first member or element
// (loneValue): a tools/list result; a result that is dense at first, then
// a long string; a params array; and results that leave loneBytes - 1 to
// loneBytes + 2 bytes after their opening bracket, around where loneValue
// starts to look.
func loneSeeds() []string {
	tools := `{"name":"tool_1","description":"Reads rows.","inputSchema":{"type":"object","properties":{"table":{"type":"string"}}},"annotations":{"readOnlyHint":true}}`
	seeds := []string{
		`{"jsonrpc":"2.0","id":"req-7","result":{"tools":[` + tools + "," + tools + "," + tools + `],"nextCursor":null}}`,
		`{"jsonrpc":"2.0","id":42,"result":{"contents":[{"uri":"a","mimeType":"b","c":"d","e":"f","g":"h","i":"j","k":"l","m":"n","o":"p","q":"r","text":"` + strings.Repeat(`source "text"
	`, 40) + `"}]}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":[` + strings.Repeat(`"a","b",{"c":"d"},`, 20) + `1.5e3]}`,
	}
	for n := loneBytes - 1; n <= loneBytes+2; n++ {
		// n bytes after the bracket: the members, the one that ends
		// result, and the message's closing bracket.
		k := (n - 40) / 8
		body := strings.Repeat(`"a":"b",`, k) + `"` + strings.Repeat("c", n-7-8*k) + `":[]}`
		seeds = append(seeds, `{"id":1,"result":{`+body+`}`)
	}
	return seeds
}

// TestIndexMatchesValue scans each seed (in afterValues, and as it is if it
// is a message), each of its prefixes and each text that differs from it
// in one byte (from the bytes that matter), and many random changes, with
// and without the structural index.
func TestIndexMatchesValue(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var texts []string
	for _, seed := range indexSeeds {
		texts = append(texts, afterValues(seed))
	}
	texts = append(texts, indexSeeds[0])
	texts = append(texts, loneSeeds()...)
	for _, text := range texts {
		data := []byte(text)
		scanBoth(t, data)
		for n := range data {
			scanBoth(t, data[:n])
		}
		for j := range data {
			for _, c := range indexAlphabet {
				if testing.Short() && c > 'z' {
					continue
				}
				mut := slices.Clone(data)
				mut[j] = c
				scanBoth(t, mut)
			}
		}
		for iter := 0; iter < 2000; iter++ {
			mut := slices.Clone(data)
			for range 1 + r.IntN(4) {
				switch j := r.IntN(len(mut)); r.IntN(3) {
				case 0:
					mut[j] = indexAlphabet[r.IntN(len(indexAlphabet))]
				case 1:
					mut = slices.Delete(mut, j, j+1)
				default:
					mut = slices.Insert(mut, j, indexAlphabet[r.IntN(len(indexAlphabet))])
				}
			}
			scanBoth(t, mut)
		}
	}
}

// TestIndexTakes checks that the structural index vouches for valid
// containers of each kind rather than giving them back to value, which
// would be correct but slow: the seeds, a surrogate pair whose second
// escape is in a block that refill skips with str (found by a hostile
// review), and objects closed after a walk went back to container (for a
// number other than an integer, or null) inside an object the walk opened
// (whose kind walkAMD64 holds in a register until it returns).
func TestIndexTakes(t *testing.T) {
	texts := []string{`{"id":1,"result":[""]}`}
	for _, seed := range indexSeeds {
		texts = append(texts, afterValues(seed))
	}
	texts = append(texts, loneSeeds()[:3]...)
	nested := `{"x":{"c":null,"d":-1.5},"y":[{"z":0}],"w":{"v":{"u":[null]}}}`
	texts = append(texts, afterValues(nested), `{"id":1,"result":[`+strings.Repeat(`"a","b",`, 40)+nested+`]}`)
	for x := 50; x < 66; x++ {
		texts = append(texts, afterValues(`"`+strings.Repeat("x", x)+`\ud83d\ude00`+strings.Repeat("y", 64)+`"`))
	}
	for _, text := range texts {
		data := []byte(text)
		var stack [4]uint64
		s := scanner{data: data, stack: stack[:], deepest: shallow}
		if s.text(nil); s.flt != ok {
			continue // the seeds that are not valid
		}
		for _, w := range stage1s() {
			for _, walk := range []bool{false, true} {
				func() {
					defer useStage1(w)()
					defer func(u, a bool) { useIndex, walkAsm = u, a }(useIndex, walkAsm)
					useIndex, walkAsm = true, walk && canWalkAsm
					s := scanner{data: data, stack: stack[:], deepest: shallow}
					if s.text(nil); s.flt != ok || s.indexed == 0 && len(text) > 100 || s.gaveUp != 0 {
						t.Errorf("%.80q... (stage 1 %s, walk in assembly %v): fault %d, %d containers indexed, %d given back", text, w.name, walk, s.flt, s.indexed, s.gaveUp)
					}
				}()
			}
		}
	}
}

// FuzzIndex holds Scan with the structural index to Scan without it. The
// text is also put where value hands a container to the index before it:
// after values, among members, after a long string.
func FuzzIndex(f *testing.F) {
	for _, s := range indexSeeds {
		f.Add(s)
	}
	f.Add(`"\ud83d\ude00", "\ud83d", "\ude00", "\u12", "\\u0041"`)
	f.Add("\"a\x01\", \"\xc3\xa9\", \"\xe9\", 1x, tru, nul, -, 01, 1., 1e")
	for _, s := range loneSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		scanBoth(t, []byte(s))
		scanBoth(t, []byte(afterValues(s)))
		// In a result that loneValue hands to the index at its bracket.
		scanBoth(t, []byte(`{"id":1,"result":[`+strings.Repeat(`"a","b",`, 40)+s+`]}`))
		scanBoth(t, []byte(`{"id":1,"result":{"a":[`+strings.Repeat("0,", indexAfter)+`0],"b":`+s+`}}`))
		scanBoth(t, []byte(`{"id":1,"result":[`+strings.Repeat("0,", indexAfter)+`"`+strings.Repeat("x", 80)+`",`+s+`]}`))
	})
}

// TestIndexDepths checks that the structural index stops where the
// scanner's stack does, as value does, when nesting goes past it after the
// hand-over: Scan's first try then fails with faultDeeper, and no bit is
// written past the stack (two guard words after it). A mutant of
// walkAMD64 without its check of s.deepest fails here at once; elsewhere
// it showed only through what its writes past the stack overwrote.
func TestIndexDepths(t *testing.T) {
	for n := 250; n < 260; n++ {
		for _, obj := range []bool{false, true} {
			open, closing := strings.Repeat("[", n), strings.Repeat("]", n)
			if obj {
				open, closing = strings.Repeat(`{"a":`, n), strings.Repeat("}", n)
			}
			data := []byte(afterValues(open + "1" + closing))
			run := func(index bool, w stage1, walk bool) (fault, []uint64) {
				defer useStage1(w)()
				defer func(u, a bool) { useIndex, walkAsm = u, a }(useIndex, walkAsm)
				useIndex, walkAsm = index, walk && canWalkAsm
				var stack [(shallow+1)/64 + 2]uint64 // two guard words past the stack
				s := scanner{data: data, stack: stack[:(shallow+1)/64], deepest: shallow}
				s.text(nil)
				return s.flt, stack[(shallow+1)/64:]
			}
			want, _ := run(false, stage1s()[0], false)
			for _, w := range stage1s() {
				for _, walk := range []bool{false, true} {
					got, guard := run(true, w, walk)
					if got != want || guard[0] != 0 || guard[1] != 0 {
						t.Errorf("%d deep (objects %v; stage 1 %s, walk in assembly %v): fault %d, guard %x; want fault %d, guard 0", n, obj, w.name, walk, got, guard, want)
					}
				}
			}
			if n == 259 && want != faultDeeper {
				t.Errorf("%d deep: fault %d, want faultDeeper", n, want)
			}
		}
	}
}

// BenchmarkIndexBlocks measures stage 1 alone, each way this processor
// has, over 1 MB of a tools/list result (as BenchmarkMessage's), in calls
// of maskCap blocks: what the walk adds is BenchmarkMessage's impl=scan
// less this.
func BenchmarkIndexBlocks(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"jsonrpc":"2.0","id":"req-7","result":{"tools":[`)
	for i := 0; sb.Len() < 1<<20; i++ {
		fmt.Fprintf(&sb, `{"name":"tool_%d","description":"Reads rows %d to %d of a table.","inputSchema":{"type":"object","properties":{"table":{"type":"string"},"limit":{"type":"integer","minimum":1,"maximum":%d}},"required":["table"]},"annotations":{"readOnlyHint":true,"idempotentHint":%v}},`,
			i, i*10, i*10+9, 100+i, i%2 == 0)
	}
	data := []byte(sb.String()[:1<<20])
	for _, w := range stage1s() {
		b.Run("impl="+w.name, func(b *testing.B) {
			var out [maskCap]uint64
			b.SetBytes(int64(len(data)))
			for range b.N {
				var st indexState
				for pos := 0; pos < len(data); pos += 64 * maskCap {
					if _, _, bad, long := w.f(data[pos:pos+64*maskCap], &st, &out); bad || long {
						b.Fatal("bad or long")
					}
				}
			}
		})
	}
}

// TestLoneValue checks which member values of a message loneValue hands to
// the structural index at their bracket: one dense from the start, with
// fewer values than indexAfter (so that only loneValue takes it); not one
// that is a long string after a few members, nor one in a batch, nor one
// with fewer than loneBytes bytes after its bracket; and of many members
// holding small objects only the first (each going to the index made such
// a message 8x slower).
func TestLoneValue(t *testing.T) {
	if !canIndex {
		t.Skip("the structural index needs AVX2 and PCLMULQDQ")
	}
	members := strings.Repeat(`"aaaaaaaaaaaaaaaaaaaa":"b",`, 10) // 10 values, 40 quotation marks
	long := `"text":"` + strings.Repeat("x", 300) + `"`
	for _, tc := range []struct {
		text    string
		indexed int
	}{
		{`{"id":1,"result":{` + members + `"c":1}}`, 1},
		{`{"id":1,"params":[` + strings.Repeat(`"a\"b\"c\"d\"e\"f\"g",`, 14) + `1]}`, 1}, // 15 values
		{`{"id":1,"result":{"type":"text",` + long + `}}`, 0},
		{`[{"id":1,"result":{` + members + `"c":1}}]`, 0},
		{`{"id":1,"result":{` + members[:loneBytes-6] + `":1}}`, 0}, // loneBytes-1 bytes after the bracket
		{`{"id":1,"result":{` + members[:loneBytes-5] + `":1}}`, 1}, // loneBytes
		{`{"id":1` + strings.Repeat(`,"a":{"b":1}`, 100) + `}`, 1},
	} {
		data := []byte(tc.text)
		var stack [4]uint64
		s := scanner{data: data, stack: stack[:], deepest: shallow}
		if s.text(nil); s.flt != ok || s.indexed != tc.indexed {
			t.Errorf("%.60q...: fault %d, %d containers indexed; want %d", tc.text, s.flt, s.indexed, tc.indexed)
		}
		scanBoth(t, data)
	}
}

// TestQuotes128 holds quotes128 to a count byte by byte.
func TestQuotes128(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for iter := 0; iter < 1000; iter++ {
		var b [128]byte
		want := 0
		for j := range b {
			if b[j] = indexAlphabet[r.IntN(len(indexAlphabet))]; iter%2 == 0 && r.IntN(2) == 0 {
				b[j] = '"'
			}
			if b[j] == '"' {
				want++
			}
		}
		if got := quotes128(&b); got != want {
			t.Fatalf("quotes128(%q) = %d, want %d", b[:], got, want)
		}
	}
}

// TestLoneValueGivesUpOnce checks that a message's first array or object
// value that the index gives back to value (here, invalid at its end) is
// not handed to it again after 16 values: the index read it twice before
// (found by a hostile review).
func TestLoneValueGivesUpOnce(t *testing.T) {
	if !canIndex {
		t.Skip("the structural index needs AVX2 and PCLMULQDQ")
	}
	data := []byte(`{"id":1,"result":[` + strings.Repeat(`"a","b",`, 40) + `1,]}`)
	var stack [4]uint64
	s := scanner{data: data, stack: stack[:], deepest: shallow}
	if s.text(nil); s.flt != faultValueStart || s.gaveUp != 1 || s.noIndex {
		t.Errorf("fault %d, %d containers given back, noIndex %v; want %d, 1, false", s.flt, s.gaveUp, s.noIndex, faultValueStart)
	}
	scanBoth(t, data)
}
