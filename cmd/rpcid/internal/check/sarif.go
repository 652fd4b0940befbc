package check

import (
	"bufio"
	"net/url"
	"path/filepath"
	"strconv"
)

// sarifSchema is the URI of the SARIF 2.1.0 JSON schema (OASIS Standard,
// Errata 01) that "check -sarif" output follows.
const sarifSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

// ruleTexts describe each finding kind in a sentence, for the rules of a
// SARIF log (tool.driver.rules), which dashboards show beside a result.
var ruleTexts = map[string]string{
	kindTypeChanged:     "A response matched its request only under the rule: the id's JSON type changed in transit.",
	kindSpellingChanged: "A response matched its request only under the rule: a numeric id's spelling changed in transit.",
	kindUnmatched:       "A response whose id matches no pending request.",
	kindAnsweredTwice:   "A second response to a request already answered.",
	kindUnanswered:      "A request never answered.",
	kindDuplicate:       "A request sent while a request with an equal id is pending, or after one with it was cancelled.",
	kindUnsafeInteger:   "An integer id beyond 2^53-1 in magnitude, which SDKs read differently.",
	kindFractional:      "A number id that is not an integer, which SDKs read differently.",
	kindNullRequest:     "A request with a null id.",
	kindNullResponse:    "A response with a null id.",
	kindInvalid:         "A line, body, event or element that is not JSON or not a JSON-RPC 2.0 message.",
	kindAmbiguousEvent:  "An event-stream event that SSE clients read differently.",
	kindByteOrderMark:   "A body whose JSON-RPC follows a UTF-8 byte order mark, which some parsers fail on.",
	kindNothing:         "A capture with no JSON-RPC message.",
}

// sarifWriter writes the findings of a run of check as one SARIF 2.1.0
// log: one run, one result per finding, written as they are found, so
// that memory does not grow with the findings.
type sarifWriter struct {
	w       *bufio.Writer
	results int
	// artifacts lists the captures in the order of their first finding,
	// by uri; index maps a uri to its index in artifacts.
	artifacts []string
	index     map[string]int
}

// sarifResult is one result of a SARIF log (SARIF 2.1.0 section 3.27).
type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifText       `json:"message"`
	Locations  []sarifLocation `json:"locations"`
	Properties sarifProperties `json:"properties"`
}

// sarifProperties are the facts of a finding that -json prints beyond
// where it is, its level, kind and message, which the result gives: these
// empty fields, shallower than the finding's own, hide them (encoding/json
// encodes the shallowest field of a name).
type sarifProperties struct {
	*finding
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Entry   int    `json:"entry,omitempty"`
	Level   string `json:"level,omitempty"`
	Kind    string `json:"kind,omitempty"`
	Message string `json:"message,omitempty"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifLocation struct {
	Physical sarifPhysical  `json:"physicalLocation"`
	Logical  []sarifLogical `json:"logicalLocations,omitempty"`
}

type sarifPhysical struct {
	Artifact sarifArtifact `json:"artifactLocation"`
	Region   *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI   string `json:"uri"`
	Index int    `json:"index"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// sarifLogical names a HAR entry: SARIF regions address text by line or
// bytes, and a HAR entry is a member of a JSON document.
type sarifLogical struct {
	Name               string `json:"name"`
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

func newSARIFWriter(w *bufio.Writer) *sarifWriter {
	s := &sarifWriter{w: w, index: map[string]int{}}
	w.WriteString(`{"$schema":"` + sarifSchema + `","version":"2.1.0","runs":[{"results":[`)
	return s
}

// artifactURI returns a capture's name as a relative URI reference (a
// path with forward slashes, escaped): standard input is "-".
func artifactURI(name string) string {
	if name == "<stdin>" {
		return "-"
	}
	u := url.URL{Path: filepath.ToSlash(name)}
	return u.EscapedPath()
}

// add writes one finding as a result.
func (s *sarifWriter) add(f *finding, encode func(any) []byte) {
	uri := artifactURI(f.File)
	i, ok := s.index[uri]
	if !ok {
		i = len(s.artifacts)
		s.index[uri] = i
		s.artifacts = append(s.artifacts, uri)
	}
	loc := sarifLocation{Physical: sarifPhysical{Artifact: sarifArtifact{URI: uri, Index: i}}}
	switch {
	case f.Entry > 0:
		n := strconv.Itoa(f.Entry)
		loc.Logical = []sarifLogical{{Name: "entry " + n, FullyQualifiedName: "log.entries[" + strconv.Itoa(f.Entry-1) + "]", Kind: "object"}}
	case f.Line > 0:
		loc.Physical.Region = &sarifRegion{StartLine: f.Line, StartColumn: f.Column}
	}
	r := sarifResult{RuleID: f.Kind, RuleIndex: ruleIndex(f.Kind), Level: f.Level, Message: sarifText{f.Message}, Locations: []sarifLocation{loc}, Properties: sarifProperties{finding: f}}
	if s.results > 0 {
		s.w.WriteByte(',')
	}
	s.results++
	b := encode(&r)
	s.w.Write(b[:len(b)-1]) // without its newline
}

// ruleIndex returns the index of a kind in kinds, which are the rules of
// the log in that order.
func ruleIndex(kind string) int {
	for i, k := range kinds {
		if k == kind {
			return i
		}
	}
	return -1
}

// sarifTail is what follows the results of a SARIF log.
type sarifTail struct {
	Tool        sarifTool         `json:"tool"`
	Artifacts   []sarifArtifactOf `json:"artifacts,omitempty"`
	Invocations []sarifInvocation `json:"invocations"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string    `json:"id"`
	ShortDescription sarifText `json:"shortDescription"`
	HelpURI          string    `json:"helpUri"`
}

type sarifArtifactOf struct {
	Location sarifArtifactURI `json:"location"`
}

type sarifArtifactURI struct {
	URI string `json:"uri"`
}

// sarifInvocation says how the run went: the exit status check returns,
// and whether every capture could be read (with what could not, and the
// summary line, as notifications).
type sarifInvocation struct {
	ExecutionSuccessful bool                `json:"executionSuccessful"`
	ExitCode            int                 `json:"exitCode"`
	Notifications       []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level   string    `json:"level"`
	Message sarifText `json:"message"`
}

// finish writes the rest of the log: the rules, the artifacts, and the
// invocation with the exit status and the summary.
func (s *sarifWriter) finish(exitCode int, notes []string, summary string, encode func(any) []byte) {
	tail := sarifTail{
		Tool: sarifTool{Driver: sarifDriver{Name: "rpcid check", InformationURI: "https://github.com/rpcid/rpcid"}},
		Invocations: []sarifInvocation{{
			ExecutionSuccessful: exitCode != 2,
			ExitCode:            exitCode,
		}},
	}
	for _, k := range kinds {
		tail.Tool.Driver.Rules = append(tail.Tool.Driver.Rules, sarifRule{ID: k, ShortDescription: sarifText{ruleTexts[k]},
			HelpURI: "https://github.com/rpcid/rpcid/blob/main/docs/check.md"})
	}
	for _, a := range s.artifacts {
		tail.Artifacts = append(tail.Artifacts, sarifArtifactOf{sarifArtifactURI{a}})
	}
	for _, n := range notes {
		tail.Invocations[0].Notifications = append(tail.Invocations[0].Notifications, sarifNotification{"error", sarifText{n}})
	}
	tail.Invocations[0].Notifications = append(tail.Invocations[0].Notifications, sarifNotification{"note", sarifText{summary}})
	b := encode(&tail)
	// The tail's members continue the run's object: drop its opening brace.
	s.w.WriteString("],")
	s.w.Write(b[1 : len(b)-2]) // without "{" and "}\n"
	s.w.WriteString("}]}\n")
}
