package rpcidtest_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/rpcidtest"
)

// An SDK checks its response matching in its own tests. This matcher is
// the kind many SDKs have: decode both ids and, for a received string id,
// fall back to a loose integer parser. Disagreements lists what the rule
// says it gets wrong: it matches near-misses such as "+1" and "01", and,
// being one-sided, it misses a request sent with "1" answered with 1. In a
// test, CheckMatcher reports the same list through t.Errorf.
func Example() {
	laxMatch := func(sent, received []byte) bool {
		var s, r any
		if json.Unmarshal(sent, &s) != nil || json.Unmarshal(received, &r) != nil {
			return false
		}
		if str, ok := r.(string); ok {
			if n, err := strconv.Atoi(str); err == nil {
				r = float64(n)
			}
		}
		return s == r
	}
	shown := map[bool]int{}
	for _, d := range rpcidtest.Disagreements(laxMatch) {
		if strings.HasPrefix(d.Vector, "pair/") && shown[d.Got] < 2 {
			fmt.Println(d)
			shown[d.Got]++
		}
	}
	// Output:
	// pair/int-vs-canonical-string (reversed): match(sent `"1"`, received `1`) = false, want true: clause 5: a gateway turned 1 into "1"; "1" is its canonical spelling
	// pair/zero-vs-string-zero (reversed): match(sent `"0"`, received `0`) = false, want true: clause 5: "0" is the canonical spelling of 0 (the initialize case)
	// pair/one-vs-plus: match(sent `1`, received `"+1"`) = true, want false: clause 5: a plus sign is not canonical (Rust i64::from_str takes it)
	// pair/one-vs-leading-zero: match(sent `1`, received `"01"`) = true, want false: clause 5: a leading zero is not canonical
}

// The rule itself passes: this is how an SDK built on rpcid would look.
func ExampleCheckMatcher() {
	match := func(sent, received []byte) bool {
		s, err := rpcid.Parse(sent)
		if err != nil {
			return false
		}
		r, err := rpcid.Parse(received)
		return err == nil && rpcid.Equal(s, r)
	}
	// In the SDK's test file this is
	//
	//	func TestIDMatching(t *testing.T) { rpcidtest.CheckMatcher(t, match) }
	testIDMatching := func(t *testing.T) { rpcidtest.CheckMatcher(t, match) }
	_ = testIDMatching
	fmt.Println(len(rpcidtest.Disagreements(match)), "disagreements")
	// Output: 0 disagreements
}

// The vectors are plain data; an SDK in another language reads
// rpcidtest/vectors.json (or the output of rpcid vectors) instead.
func ExampleVectors() {
	for _, v := range rpcidtest.Vectors() {
		if v.Name == "int-hundred-e-minus-two" || v.Name == "zero-vs-empty" {
			fmt.Printf("%s %s: %s\n", v.Type, v.Name, v.Reason)
		}
	}
	// Output:
	// decode int-hundred-e-minus-two: clause 2: 100e-2 is the integer 1
	// pair zero-vs-empty: clause 5: "" names no number (JavaScript Number("") is 0)
}

// An SDK whose matcher is strict on purpose (it compares type and value,
// as JSON-RPC 2.0's "MUST be the same as the value of the id member"
// allows) can check only that it never delivers a response to the wrong
// request: the disagreements where it matches what the rule does not. Its
// misses (1 sent, "1" received) are then its policy, not a failure.
func ExampleDisagreements_wrongMatchesOnly() {
	strict := func(sent, received []byte) bool {
		var s, r any
		if json.Unmarshal(sent, &s) != nil || json.Unmarshal(received, &r) != nil {
			return false
		}
		return s == r // float64 for numbers: 9007199254740993 equals 9007199254740992
	}
	shown := 0
	for _, d := range rpcidtest.Disagreements(strict) {
		if d.Got && !d.Want && strings.HasPrefix(d.Vector, "pair/") && shown < 2 {
			fmt.Println(d)
			shown++
		}
	}
	// Output:
	// pair/int-2p53-plus-1-vs-2p53: match(sent `9007199254740993`, received `9007199254740992`) = true, want false: clause 2: exact, never through float64 (which makes both 2^53)
	// pair/int-2p53-plus-1-vs-2p53 (reversed): match(sent `9007199254740992`, received `9007199254740993`) = true, want false: clause 2: exact, never through float64 (which makes both 2^53)
}
