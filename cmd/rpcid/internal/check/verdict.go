package check

import (
	"fmt"
	"strconv"
	"strings"
)

// The verdict ends the summary: which clients the findings break, and the
// fix. Where conformance/RESULTS.md measures an SDK, the verdict names it
// from there with its figures (measured.go, kept in step by TestMeasured);
// the SDKs it does not measure are named from the SDK survey.

// verdictTally counts the findings of a run that the verdict speaks of.
type verdictTally struct {
	// typeChanged and spellingChanged: responses matched only under the
	// rule, whose id changed type (1 and "1") or spelling (1 and 1.0).
	typeChanged, spellingChanged int
	// wrongBy counts, for each normalizer a finding names, the responses
	// it would deliver to a request whose id is different.
	wrongBy map[string]int
	wrong   int // responses some normalizer delivers to a different request
	// numeric counts ids beyond 2^53-1 or fractional (unsafe-integer,
	// fractional-id).
	numeric int
	// lost counts responses that lost their request's id: null-id
	// responses naming a request the peer read, and responses without an
	// "id" member.
	lost int
	// reused counts requests reusing an id in flight (duplicate-id).
	reused int
}

// add counts a finding.
func (t *verdictTally) add(f *finding) {
	switch f.Kind {
	case kindTypeChanged:
		t.typeChanged++
	case kindSpellingChanged:
		t.spellingChanged++
	case kindUnsafeInteger, kindFractional:
		t.numeric++
	case kindDuplicate:
		if f.Note == "" { // not where a log's runs overlap
			t.reused++
		}
	case kindNullResponse:
		// The answer to a named request whose id the peer dropped; not
		// one that answers a request sent with a null id, nor the body
		// of a refused HTTP exchange (Note: a missing session, say, no
		// id lost on the way).
		if f.Request != nil && string(f.Request.ID) != "null" && f.Note == "" && !unreadable(f.Error) {
			t.lost++
		}
	case kindInvalid:
		// A response without an "id" member (see idless).
		if f.Request != nil && !unreadable(f.Error) {
			t.lost++
		}
	case kindUnmatched:
		wrong := false
		for _, l := range f.Lax {
			if l.Verdict == "different" {
				if t.wrongBy == nil {
					t.wrongBy = map[string]int{}
				}
				t.wrongBy[l.Normalizer]++
				wrong = true
			}
		}
		if wrong {
			t.wrong++
		}
	}
}

// unreadable reports whether errRaw is a parse error or an invalid
// request, the errors of a peer that could not read a request, which
// excuse a response without its id.
func unreadable(errRaw []byte) bool {
	code := describeError(errRaw).code
	return errRaw != nil && (code == "-32700" || code == "-32600")
}

// sdkOfNormalizer names the SDK that reads ids with each normalizer a
// finding names: measured ones by their name in RESULTS.md.
var sdkOfNormalizer = map[string]string{
	"JavaScript Number()":   "TypeScript SDK",
	"JavaScript JSON.parse": "TypeScript SDK",
	"Python int()":          "the Python SDK",
	"Rust i64::from_str":    "rmcp",
}

// failing returns the measured SDKs for which fails counts more than zero,
// as "NAME VERSION", and their counts.
func failing(fails func(measuredSDK) int) (names []string, counts []string) {
	for _, m := range measured {
		if n := fails(m); n > 0 {
			names = append(names, sdkName(m))
			counts = append(counts, strconv.Itoa(n))
		}
	}
	return names, counts
}

// sdkName is how the verdict names a measured SDK.
func sdkName(m measuredSDK) string {
	if m.Name == "TypeScript SDK" {
		return "the TypeScript SDK " + m.Version
	}
	return m.String()
}

// verdict returns the sentences that end the summary, or "" when the
// findings break no client this way.
func (t *verdictTally) verdict() string {
	var breaks []string
	if t.typeChanged > 0 {
		names, counts := failing(func(m measuredSDK) int { return m.Canonical.Missed + m.Canonical.Refused })
		breaks = append(breaks, fmt.Sprintf("%s whose id changed type %s dropped (or refused) by %s (conformance/RESULTS.md, clause 5: %s failed checks) and C#",
			plural(t.typeChanged, "response"), isAre(t.typeChanged), strings.Join(names, ", "), joinAnd(counts)))
	}
	if t.spellingChanged > 0 {
		names, counts := failing(func(m measuredSDK) int {
			return m.Integers.Missed + m.Integers.Refused + m.Numbers.Missed + m.Numbers.Refused
		})
		breaks = append(breaks, fmt.Sprintf("%s whose numeric id changed spelling %s dropped (or refused) by %s (clauses 2 and 3: %s failed checks), and by rmcp, C# and Python if it is no plain integer",
			plural(t.spellingChanged, "response"), isAre(t.spellingChanged), strings.Join(names, ", "), joinAnd(counts)))
	}
	if t.wrong > 0 {
		var names []string
		seen := map[string]bool{}
		for _, norm := range sortedKeys(t.wrongBy) {
			sdk := sdkOfNormalizer[norm]
			if sdk == "" || seen[sdk] {
				continue
			}
			seen[sdk] = true
			name := sdk
			for _, m := range measured {
				if m.Name == sdk {
					w := m.Integers.WrongMatch + m.Numbers.WrongMatch + m.Canonical.WrongMatch
					name = fmt.Sprintf("%s (%d wrong matches measured)", sdkName(m), w)
				}
			}
			names = append(names, name)
		}
		or := strings.Join(names, " or ")
		if len(names) > 2 {
			or = strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
		}
		breaks = append(breaks, fmt.Sprintf("%s that %s would deliver to a request whose id differs", plural(t.wrong, "response"), or))
	}
	if t.numeric > 0 {
		names, counts := failing(func(m measuredSDK) int { return m.Integers.WrongMatch + m.Numbers.WrongMatch })
		breaks = append(breaks, fmt.Sprintf("%s beyond 2^53-1 or fractional, which %s may match wrongly (clauses 2 and 3: %s wrong matches)",
			plural(t.numeric, "id"), joinAnd(names), joinAnd(counts)))
	}
	if t.lost > 0 {
		breaks = append(breaks, fmt.Sprintf("%s lost the id of a request the peer read, which no client can match", plural(t.lost, "response")))
	}
	if t.reused > 0 {
		breaks = append(breaks, fmt.Sprintf("%s reused an id in flight, whose answers no client can tell apart", plural(t.reused, "request")))
	}
	if len(breaks) == 0 {
		return ""
	}
	fix := "rpcid proxy between the client and the hop that changes the ids restores each id to the bytes the client sent"
	if t.wrong+t.numeric+t.lost+t.reused > 0 {
		fix = "rpcid proxy -remap between the client and the hops that lose or change the ids gives each request a small integer id of its own and the answer the client's id"
		if t.typeChanged+t.spellingChanged > 0 {
			fix += " (plain rpcid proxy restores only ids whose type or spelling changed)"
		}
	}
	return "Breaks: " + strings.Join(breaks, "; ") + ". Fix: " + fix + "."
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// A measuredSDK is an SDK that conformance/RESULTS.md measures (its id
// decoding and pending-request lookup run on the conformance checks), with
// its figures for the clauses of the rule that the summary cites (see
// verdict): Integers, clause 2 (integers in any spelling, such as 1.0 for
// 1); Numbers, clause 3 (other numbers, by exact value); Canonical, clause
// 5 (a string equals an integer only in canonical decimal, such as "1" for
// 1, the id whose JSON type a gateway changed).
type measuredSDK struct {
	Name, Version                string
	Integers, Numbers, Canonical clauseTally
}

// clauseTally counts the verdicts of one SDK on one clause's checks, as
// RESULTS.md's tables do: WrongMatch, the response settled a request it
// does not answer; Missed, the SDK dropped a response that answers the
// request; Refused, it rejected the message or closed the connection.
type clauseTally struct {
	Run, Agreed, WrongMatch, Missed, Refused, Skipped int
}

func (m measuredSDK) String() string { return m.Name + " " + m.Version }
