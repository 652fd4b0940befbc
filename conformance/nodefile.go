package conformance

import (
	"encoding/json"
	"fmt"
)

// nodeResults is node/results.json, written by the Node harness
// (node/harness.mjs) from testdata/cases.json.
type nodeResults struct {
	SDK         string   `json:"sdk"`
	Version     string   `json:"version"`
	Zod         string   `json:"zod"`
	Node        string   `json:"node"`
	How         string   `json:"how"`
	CasesSHA256 string   `json:"cases_sha256"`
	Outcomes    []string `json:"outcomes"`
}

// ParseNodeResults reads node/results.json and checks that it holds one
// outcome for each case of the case list whose digest is casesDigest.
func ParseNodeResults(data []byte, casesDigest string, n int) (SDK, error) {
	var r nodeResults
	if err := json.Unmarshal(data, &r); err != nil {
		return SDK{}, fmt.Errorf("conformance: node/results.json: %v", err)
	}
	if r.CasesSHA256 != casesDigest {
		return SDK{}, fmt.Errorf("conformance: node/results.json was measured on another case list (sha256 %s, testdata/cases.json is %s): run the Node harness again (see README.md)", r.CasesSHA256, casesDigest)
	}
	if len(r.Outcomes) != n {
		return SDK{}, fmt.Errorf("conformance: node/results.json has %d outcomes for %d cases", len(r.Outcomes), n)
	}
	sdk := SDK{Name: "TypeScript SDK", Module: r.SDK, Version: r.Version, How: r.How}
	if r.Zod != "" || r.Node != "" {
		sdk.How += fmt.Sprintf(" (zod %s, node %s)", r.Zod, r.Node)
	}
	for i, s := range r.Outcomes {
		o, ok := parseOutcome(s)
		if !ok {
			return SDK{}, fmt.Errorf("conformance: node/results.json: case %d: unknown outcome %q", i, s)
		}
		sdk.Outcomes = append(sdk.Outcomes, o)
	}
	return sdk, nil
}
