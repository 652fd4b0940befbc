package conformance

import (
	"fmt"

	"github.com/rpcid/rpcid/rpcidtest"
)

// An Outcome is what an SDK did with one response.
type Outcome uint8

// The outcomes.
const (
	// Unsendable: the SDK cannot have a request pending under the sent id
	// (its decoder refuses the id, or its client sends only other ids), so
	// the case is skipped.
	Unsendable Outcome = iota
	// Match: the response settled the pending request.
	Match
	// NoMatch: the response was read and its id looked up, and no pending
	// request was found; the response was dropped.
	NoMatch
	// Refused: the SDK refused the response message (a decoding or
	// validation error) or closed the connection over it, before any
	// lookup.
	Refused
)

var outcomeNames = [...]string{"unsendable", "match", "no-match", "refused"}

// String returns the name of o as node/results.json spells it: "unsendable",
// "match", "no-match" or "refused".
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("Outcome(%d)", o)
}

// parseOutcome reads an Outcome as String writes it.
func parseOutcome(s string) (Outcome, bool) {
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i), true
		}
	}
	return 0, false
}

// A Verdict compares an Outcome with the rule's answer.
type Verdict uint8

// The verdicts.
const (
	Skipped    Verdict = iota // Unsendable
	Agreed                    // Match where the rule says match; NoMatch or Refused where it says no match
	WrongMatch                // Match where the rule says no match: the response goes to a request it does not answer
	Missed                    // NoMatch where the rule says match: the response is silently dropped
	RefusedOne                // Refused where the rule says match: an error, or the connection is lost
)

// Judge gives the verdict on outcome o for a case whose rule answer is
// want.
func Judge(o Outcome, want bool) Verdict {
	switch {
	case o == Unsendable:
		return Skipped
	case o == Match && want, o != Match && !want:
		return Agreed
	case o == Match:
		return WrongMatch
	case o == NoMatch:
		return Missed
	}
	return RefusedOne
}

// An SDK is one SDK's id-matching path, run over every case.
type SDK struct {
	// Name is what RESULTS.md calls the SDK.
	Name string
	// Module is the Go module path (or npm package) whose version is
	// reported.
	Module string
	// Version is the module's version.
	Version string
	// How says in one line which SDK functions are exercised.
	How string
	// Outcomes holds the outcome of every case, by Case.Index.
	Outcomes []Outcome
}

// A matcher runs one case through an SDK.
type matcher func(sent, received []byte) Outcome

// goSDKs lists the Go SDKs measured, in the order RESULTS.md shows them.
// The versions are those go.mod requires (TestVersionsAreGoMod checks
// them; a test binary carries no module versions to read).
var goSDKs = []struct {
	name, module, version, how string
	run                        matcher
}{
	{"go-sdk", "github.com/modelcontextprotocol/go-sdk", "v1.8.0", goSDKHow, goSDKMatch},
	{"mcp-go (stdio, SSE)", "github.com/mark3labs/mcp-go", "v1.2.1", mcpGoHow, mcpGoMatch},
	{"sourcegraph/jsonrpc2", "github.com/sourcegraph/jsonrpc2", "v0.2.3", sourcegraphHow, sourcegraphMatch},
	{"creachadair/jrpc2", "github.com/creachadair/jrpc2", "v1.3.6", jrpc2How, jrpc2Match},
}

// MeasureGo runs every Go SDK over the cases through
// rpcidtest.Disagreements, recording each outcome. It fails if an SDK was
// not called once for each case in order, or if the disagreements
// rpcidtest reports are not exactly the cases whose outcome (Match or not)
// differs from the rule: that is, if the harness did not run every case.
func MeasureGo(cases []Case) ([]SDK, error) {
	var out []SDK
	for _, g := range goSDKs {
		sdk := SDK{Name: g.name, Module: g.module, Version: g.version, How: g.how}
		var mismatch error
		ds := rpcidtest.Disagreements(func(sent, received []byte) bool {
			i := len(sdk.Outcomes)
			if mismatch == nil && (i >= len(cases) || string(cases[i].Sent) != string(sent) || string(cases[i].Received) != string(received)) {
				mismatch = fmt.Errorf("conformance: %s: call %d of rpcidtest is not case %d of the case list", g.name, i, i)
			}
			o := g.run(sent, received)
			sdk.Outcomes = append(sdk.Outcomes, o)
			return o == Match
		})
		if mismatch != nil {
			return nil, mismatch
		}
		if len(sdk.Outcomes) != len(cases) {
			return nil, fmt.Errorf("conformance: %s ran %d cases, want %d", g.name, len(sdk.Outcomes), len(cases))
		}
		if err := checkDisagreements(sdk, cases, ds); err != nil {
			return nil, err
		}
		out = append(out, sdk)
	}
	return out, nil
}

// checkDisagreements checks that ds lists exactly the cases where sdk's
// answer (Match or not) differs from the rule, in case order.
func checkDisagreements(sdk SDK, cases []Case, ds []rpcidtest.Disagreement) error {
	j := 0
	for i, c := range cases {
		if (sdk.Outcomes[i] == Match) == c.Want {
			continue
		}
		if j >= len(ds) || ds[j].Vector != c.Vector || string(ds[j].Received) != string(c.Received) {
			return fmt.Errorf("conformance: %s: case %d (%s) disagrees with the rule but rpcidtest did not report it there", sdk.Name, i, c.Vector)
		}
		j++
	}
	if j != len(ds) {
		return fmt.Errorf("conformance: %s: rpcidtest reported %d disagreements, the outcomes show %d", sdk.Name, len(ds), j)
	}
	return nil
}
