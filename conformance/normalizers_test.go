package conformance

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/rpcidtest"
)

// The drop-in normalizers (js/request-id.mjs, python/request_id.py,
// rust/request_id.rs) are second implementations of the rule in other
// languages. Their own runners check them on the vectors;
// TestNormalizersAgreeWithRule checks them on thousands of generated ids
// against rpcid itself: two ids get the same key exactly when rpcid.Equal
// says they are equal, and an id has a key exactly when rpcid.Parse accepts
// it. Only ids the language's decoder holds exactly are compared (a double
// for JSON.parse and json.loads, a Decimal for
// json.loads(parse_float=Decimal), an i64 or a string for rmcp's
// NumberOrString; request_id.rs reads raw JSON text, which is always
// exact); null is left out, as the normalizers treat it as no request id by
// design.

// normalizerInputs returns the raw ids to run: every raw id of the vectors,
// then generated numbers and strings around the rule's edges (int64 bounds,
// 2^53, the exponent bound, escapes, surrogates, digits in other scripts).
func normalizerInputs(n int) [][]byte {
	var in [][]byte
	for _, v := range rpcidtest.Vectors() {
		for _, raw := range [][]byte{v.Raw, v.A, v.B} {
			if raw != nil {
				in = append(in, raw)
			}
		}
	}
	r := rand.New(rand.NewPCG(13, 2026))
	digits := func(n int) string {
		var b strings.Builder
		for range n {
			if r.IntN(3) == 0 {
				b.WriteByte('0')
			} else {
				b.WriteByte(byte('0' + r.IntN(10)))
			}
		}
		return b.String()
	}
	number := func() string {
		var b strings.Builder
		if r.IntN(2) == 0 {
			b.WriteByte('-')
		}
		w := strings.TrimLeft(digits(1+r.IntN(22)), "0")
		if w == "" {
			w = "0"
		}
		b.WriteString(w)
		if r.IntN(2) == 0 {
			b.WriteString("." + digits(1+r.IntN(20)))
		}
		if r.IntN(2) == 0 {
			b.WriteString([]string{"e", "E", "e-", "e+"}[r.IntN(4)])
			switch r.IntN(5) {
			case 0:
				b.WriteString(strconv.Itoa(999999999999999990 + r.IntN(20)))
			case 1:
				b.WriteString("0" + digits(r.IntN(4)))
			default:
				b.WriteString(strconv.Itoa(r.IntN(30)))
			}
		}
		return b.String()
	}
	atoms := []string{"0", "1", "9", "-", "+", " ", "a", "A", "é", `\u0000`, `\u0031`, `\u002d`, `\ud800`, `\udc00`,
		`\ud83d\ude00`, "😀", `\"`, `\\`, `\n`, `\/`, "\u00a0", "\u0661", "\uff11", `\ufffd`, `\uFEFF`, "e", ".", "\xff"}
	str := func() string {
		var b strings.Builder
		b.WriteByte('"')
		if r.IntN(2) == 0 { // digits: canonical or not, within int64 or not
			if r.IntN(3) == 0 {
				b.WriteByte('-')
			}
			b.WriteString(digits(1 + r.IntN(20)))
		} else {
			for range r.IntN(5) {
				b.WriteString(atoms[r.IntN(len(atoms))])
			}
		}
		b.WriteByte('"')
		return b.String()
	}
	// spellings writes the number ±d × 10^e (d digits without a trailing
	// zero) in several ways, and as a string when it is an integer, so that
	// equal ids of different spellings and kinds meet.
	spellings := func(neg bool, d string, e int) []string {
		sign := ""
		if neg {
			sign = "-"
		}
		out := []string{
			sign + d + "e" + strconv.Itoa(e),
			sign + d + "0E" + strconv.Itoa(e-1),
			sign + "0." + d + "e+" + strconv.Itoa(e+len(d)),
		}
		switch {
		case e >= 0 && e < 25:
			i := sign + d + strings.Repeat("0", e)
			out = append(out, i, i+".00", `"`+i+`"`)
		case e < 0 && -e < len(d):
			out = append(out, sign+d[:len(d)+e]+"."+d[len(d)+e:], `"`+sign+d[:len(d)+e]+"."+d[len(d)+e:]+`"`)
		case e < 0 && -e < 40:
			out = append(out, sign+"0."+strings.Repeat("0", -e-len(d))+d)
		}
		return out
	}
	for len(in) < n {
		if r.IntN(3) == 0 {
			d := strings.TrimRight(strconv.FormatUint(r.Uint64()>>r.IntN(64)|1<<r.IntN(3), 10), "0")
			var e int
			switch r.IntN(4) {
			case 0:
				e = 999999999999999990 + r.IntN(20)
			case 1:
				e = -999999999999999990 - r.IntN(20) + len(d)
			default:
				e = r.IntN(40) - 20
			}
			for _, t := range spellings(r.IntN(2) == 0, d, e) {
				in = append(in, []byte(t))
			}
			continue
		}
		var t string
		switch r.IntN(6) {
		case 0:
			t = strconv.FormatInt(r.Int64()>>r.IntN(64)*int64(1-2*r.IntN(2)), 10)
		case 1:
			t = strconv.FormatFloat(r.NormFloat64()*float64(uint64(1)<<r.IntN(70)), 'g', -1, 64)
		case 2, 3:
			t = str()
		default:
			t = number()
		}
		in = append(in, []byte(t))
	}
	return in
}

// normalizerKeys is what a normalizer script prints for one raw id: its key
// under each way of decoding (null for no key), and whether that decoding
// could be done at all (false: the decoder refused the text, as Decimal
// refuses some exponents).
type normalizerKeys map[string]struct {
	Key     *string `json:"key"`
	Decoded bool    `json:"decoded"`
}

const jsNormalizer = `
import { pathToFileURL } from 'node:url';
import { readFileSync } from 'node:fs';
const { requestIdKey } = await import(pathToFileURL(process.argv[1]));
const out = JSON.parse(readFileSync(0, 'utf8')).map(h => {
  let v;
  try {
    const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(Buffer.from(h, 'hex'));
    v = JSON.parse(text);
    const source = text.replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '');
    const plain = requestIdKey(v) ?? null;
    return { double: { key: plain, decoded: true }, source: { key: (typeof v === 'number' ? requestIdKey(v, source) : requestIdKey(v)) ?? null, decoded: true } };
  } catch {
    return { double: { key: null, decoded: true }, source: { key: null, decoded: true } };
  }
});
process.stdout.write(JSON.stringify(out));
`

const pyNormalizer = `
import json, sys
from decimal import Decimal, InvalidOperation
sys.path.insert(0, sys.argv[1])
from request_id import request_id_key
def refuse(name):
    raise ValueError(name)
def key(raw, exact):
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return {"key": None, "decoded": True}
    try:
        v = json.loads(text, parse_float=Decimal, parse_constant=refuse) if exact else json.loads(text, parse_constant=refuse)
    except InvalidOperation:
        return {"key": None, "decoded": False}
    except ValueError:
        return {"key": None, "decoded": True}
    k = request_id_key(v)
    return {"key": None if k is None else repr(k), "decoded": True}
out = [{"float": key(bytes.fromhex(h), False), "decimal": key(bytes.fromhex(h), True)} for h in json.load(sys.stdin)]
sys.stdout.write(json.dumps(out))
`

// rustNormalizer is the main of a program built with rust/request_id.rs
// beside it. Each item of its input is a raw id in hexadecimal, "|", and the
// id as rmcp's NumberOrString would hold it: "i" and an i64, "s" and the
// string's value in hexadecimal, or nothing. It prints the key of the raw
// text (request_id_key) and of the decoded id (request_id_key_i64 or
// request_id_key_str).
const rustNormalizer = `
mod request_id;
use std::io::Read;

fn unhex(h: &str) -> Vec<u8> {
    (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect()
}

fn entry(key: Option<String>, decoded: bool) -> String {
    let mut q = String::from("null");
    if let Some(k) = key {
        q = String::from("\"");
        for c in k.chars() {
            match c {
                '"' => q.push_str("\\\""),
                '\\' => q.push_str("\\\\"),
                c if (c as u32) < 0x20 => q.push_str(&format!("\\u{:04x}", c as u32)),
                c => q.push(c),
            }
        }
        q.push('"');
    }
    format!("{{\"key\":{q},\"decoded\":{decoded}}}")
}

fn main() {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).unwrap();
    let mut out = Vec::new();
    for item in input.split('"').skip(1).step_by(2) {
        let (raw, decoded) = item.split_once('|').unwrap();
        let raw = unhex(raw);
        let text = std::str::from_utf8(&raw).ok();
        let key = text.and_then(request_id::request_id_key);
        // An id is the same as itself exactly when it has a key.
        assert_eq!(text.is_some_and(|t| request_id::same_request_id(t, t)), key.is_some());
        let dec = match decoded.split_at(decoded.len().min(1)) {
            ("i", n) => Some(request_id::request_id_key_i64(n.parse().unwrap())),
            ("s", s) => Some(request_id::request_id_key_str(&String::from_utf8(unhex(s)).unwrap())),
            _ => None,
        };
        let has_dec = dec.is_some();
        out.push(format!("{{\"raw\":{},\"decoded\":{}}}", entry(key, true), entry(dec, has_dec)));
    }
    print!("[{}]", out.join(","));
}
`

// buildRust builds rustNormalizer with rust/request_id.rs in a temporary
// directory and returns the program's path.
func buildRust(t *testing.T, rustc string) string {
	t.Helper()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("rust", "request_id.rs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "request_id.rs"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.rs"), []byte(rustNormalizer), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	bin := filepath.Join(dir, "normalizer")
	if out, err := exec.CommandContext(ctx, rustc, "--edition", "2021", "-D", "warnings", "-o", bin, filepath.Join(dir, "main.rs")).CombinedOutput(); err != nil {
		t.Fatalf("rustc: %v\n%s", err, out)
	}
	return bin
}

// rustItems writes each raw id as rustNormalizer reads it: in hexadecimal,
// and as NumberOrString holds it when it is an integer within int64 or a
// string.
func rustItems(in [][]byte) []string {
	items := make([]string, len(in))
	for i, raw := range in {
		dec := ""
		if id, err := rpcid.Parse(raw); err == nil {
			if n, ok := id.Int64(); ok {
				dec = "i" + strconv.FormatInt(n, 10)
			} else if s, ok := id.StringValue(); ok {
				dec = "s" + hex.EncodeToString([]byte(s))
			}
		}
		items[i] = hex.EncodeToString(raw) + "|" + dec
	}
	return items
}

// hexItems writes each raw id in hexadecimal, as the Node and Python
// scripts read them.
func hexItems(in [][]byte) []string {
	items := make([]string, len(in))
	for i, raw := range in {
		items[i] = hex.EncodeToString(raw)
	}
	return items
}

// runNormalizer runs a normalizer program on items, a JSON array of strings
// on its standard input (one per raw id), and returns one normalizerKeys
// per id.
func runNormalizer(t *testing.T, argv []string, items []string) []normalizerKeys {
	t.Helper()
	stdin, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(argv[0]), err, stderr.Bytes())
	}
	var keys []normalizerKeys
	if err := json.Unmarshal(out, &keys); err != nil {
		t.Fatalf("%s: output: %v", filepath.Base(argv[0]), err)
	}
	if len(keys) != len(items) {
		t.Fatalf("%s: %d keys for %d ids", filepath.Base(argv[0]), len(keys), len(items))
	}
	return keys
}

// doubleExact reports whether raw, if it is a JSON number, is one whose
// value a float64 (as JSON.parse and Python's float read it: correctly
// rounded) holds exactly. Other raw ids, JSON or not, the decoders hold
// exactly or refuse.
func doubleExact(raw []byte) bool {
	text := strings.Trim(string(raw), " \t\n\r")
	if _, err := rpcid.Parse(raw); err != nil && !errors.Is(err, rpcid.ErrRange) {
		return true
	}
	if text == "" || text[0] != '-' && (text[0] < '0' || text[0] > '9') {
		return true
	}
	mantissa, exp, _ := strings.Cut(strings.ToLower(text), "e")
	if strings.Trim(mantissa, "-0.") == "" {
		return true // a zero, whatever its exponent
	}
	// An exponent far beyond the digits written puts the value outside
	// float64's range (and big.Rat would expand it digit by digit).
	if e := strings.TrimLeft(strings.TrimLeft(exp, "+-"), "0"); len(e) > 6 {
		return false
	} else if n, _ := strconv.Atoi(e); n > len(mantissa)+400 {
		return false
	}
	exact, ok := new(big.Rat).SetString(text)
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return false // out of float64's range
	}
	return new(big.Rat).SetFloat64(f).Cmp(exact) == 0
}

func TestNormalizersAgreeWithRule(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 4000
	}
	in := normalizerInputs(n)
	// go test caches a passing result keyed by the files the test itself
	// opens, not those its child processes read: open the normalizers here,
	// so that editing one runs the test again.
	for _, f := range []string{filepath.Join("js", "request-id.mjs"), filepath.Join("python", "request_id.py"), filepath.Join("rust", "request_id.rs")} {
		if _, err := os.ReadFile(f); err != nil {
			t.Fatal(err)
		}
	}
	type variant struct {
		name  string
		keys  []normalizerKeys
		field string
		exact func(raw []byte) bool // whether the decoder holds raw exactly
	}
	var variants []variant
	always := func([]byte) bool { return true }
	if node, err := exec.LookPath("node"); err != nil {
		t.Log("node not found: request-id.mjs not checked against rpcid (install node to check it)")
	} else {
		script, _ := filepath.Abs(filepath.Join("js", "request-id.mjs"))
		keys := runNormalizer(t, []string{node, "--input-type=module", "-e", jsNormalizer, script}, hexItems(in))
		variants = append(variants,
			variant{"request-id.mjs on JSON.parse values", keys, "double", doubleExact},
			variant{"request-id.mjs with each number's source", keys, "source", always})
	}
	if python, err := exec.LookPath("python3"); err != nil {
		t.Log("python3 not found: request_id.py not checked against rpcid (install python3 to check it)")
	} else {
		dir, _ := filepath.Abs("python")
		keys := runNormalizer(t, []string{python, "-c", pyNormalizer, dir}, hexItems(in))
		variants = append(variants,
			variant{"request_id.py on json.loads floats", keys, "float", func(raw []byte) bool {
				// json.loads reads a number without fraction or exponent as an exact int.
				return !bytes.ContainsAny(raw, ".eE") || doubleExact(raw)
			}},
			variant{"request_id.py on json.loads(parse_float=Decimal)", keys, "decimal", always})
	}
	if rustc, err := exec.LookPath("rustc"); err != nil {
		t.Log("rustc not found: request_id.rs not checked against rpcid (install Rust to check it)")
	} else {
		keys := runNormalizer(t, []string{buildRust(t, rustc)}, rustItems(in))
		variants = append(variants,
			variant{"request_id.rs on NumberOrString values", keys, "decoded", func(raw []byte) bool {
				id, err := rpcid.Parse(raw)
				return err == nil && (id.Kind() == rpcid.KindInt || id.Kind() == rpcid.KindString)
			}},
			variant{"request_id.rs on raw JSON text", keys, "raw", always})
	}
	// Where both ways of decoding hold an id exactly, they must give it the
	// same key: an SDK keys its own request ids without a source (or from
	// floats) and may look responses up with one (or from Decimals).
	for i := 0; i+1 < len(variants); i += 2 {
		lossy, exact := variants[i], variants[i+1]
		mismatches := 0
		for j, raw := range in {
			a, b := lossy.keys[j][lossy.field], exact.keys[j][exact.field]
			if !a.Decoded || !b.Decoded || !lossy.exact(raw) || deref(a.Key) == deref(b.Key) {
				continue
			}
			if mismatches++; mismatches <= 10 {
				t.Errorf("%s: key %s %s, but %s %s", show(raw), deref(a.Key), lossy.name, deref(b.Key), exact.name)
			}
		}
	}
	// request-id.mjs given sources and request_id.rs both read every id
	// exactly, and spell keys alike: where both give a key, it is the same.
	var js, rs *variant
	for i := range variants {
		switch variants[i].name {
		case "request-id.mjs with each number's source":
			js = &variants[i]
		case "request_id.rs on raw JSON text":
			rs = &variants[i]
		}
	}
	if js != nil && rs != nil {
		differ := 0
		for i, raw := range in {
			a, b := js.keys[i][js.field].Key, rs.keys[i][rs.field].Key
			if a == nil || b == nil || *a == *b {
				continue
			}
			if differ++; differ <= 10 {
				t.Errorf("%s: key %q from request-id.mjs, %q from request_id.rs", show(raw), *a, *b)
			}
		}
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			checked, fails := 0, 0
			fail := func(format string, args ...any) {
				if fails++; fails <= 10 {
					t.Errorf(format, args...)
				}
			}
			byKey := map[string]int{}     // normalizer key -> index of the first id with it
			byRule := map[rpcid.Key]int{} // rpcid key -> index of the first id with it
			for i, raw := range in {
				got := v.keys[i][v.field]
				if !got.Decoded || !v.exact(raw) {
					continue
				}
				id, err := rpcid.Parse(raw)
				if err == nil && id.Kind() == rpcid.KindNull {
					continue
				}
				checked++
				if (err == nil) != (got.Key != nil) {
					fail("%s: rpcid.Parse error %v, normalizer key %v", show(raw), err, deref(got.Key))
					continue
				}
				if err != nil {
					continue
				}
				k, rk := *got.Key, id.Key()
				if j, ok := byKey[k]; ok && !rpcid.Equal(id, rpcid.MustParse(string(in[j]))) {
					fail("%s and %s: same key %s, but not equal under the rule", show(raw), show(in[j]), k)
				}
				if j, ok := byRule[rk]; ok && *v.keys[j][v.field].Key != k {
					fail("%s and %s: equal under the rule, but keys %s and %s", show(raw), show(in[j]), k, *v.keys[j][v.field].Key)
				}
				if _, ok := byKey[k]; !ok {
					byKey[k] = i
				}
				if _, ok := byRule[rk]; !ok {
					byRule[rk] = i
				}
			}
			t.Logf("%d of %d ids compared (the decoder holds them exactly), %d classes", checked, len(in), len(byRule))
			if checked < len(in)/3 {
				t.Errorf("only %d of %d ids compared", checked, len(in))
			}
		})
	}
}

func deref(p *string) string {
	if p == nil {
		return "none"
	}
	return *p
}

// show prints a raw id unambiguously: backquoted when it is valid UTF-8
// without control characters or backquotes, in hexadecimal otherwise.
func show(raw []byte) string {
	if utf8.Valid(raw) && !bytes.ContainsFunc(raw, func(r rune) bool { return r < 0x20 || r == '`' || r == 0x7f }) {
		return "`" + string(raw) + "`"
	}
	return fmt.Sprintf("hex %x", raw)
}
