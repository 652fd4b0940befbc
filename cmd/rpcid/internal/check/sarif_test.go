package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// testdata/sarif-schema-2.1.0.json is the SARIF 2.1.0 JSON schema (OASIS
// Standard, Errata 01), as oasis-tcs/sarif-spec holds it in
// sarif-2.1/schema/sarif-schema-2.1.0.json (commit e058381).

// schemaValidator checks a JSON value against a JSON schema (draft 04),
// for the keywords the SARIF 2.1.0 schema uses. A keyword it does not know
// is an error of the schema, so that none is passed over.
type schemaValidator struct {
	root   map[string]any
	errors []string
}

// Keywords that only annotate.
var annotations = map[string]bool{"description": true, "default": true, "title": true, "$schema": true, "id": true, "definitions": true}

func (v *schemaValidator) fail(path, format string, args ...any) {
	v.errors = append(v.errors, path+": "+fmt.Sprintf(format, args...))
}

// validate checks x (decoded with UseNumber) at path against schema s.
func (v *schemaValidator) validate(s map[string]any, x any, path string) {
	if ref, ok := s["$ref"].(string); ok {
		name, ok := strings.CutPrefix(ref, "#/definitions/")
		def, found := v.root["definitions"].(map[string]any)[name].(map[string]any)
		if !ok || !found {
			v.fail(path, "schema: unresolved $ref %q", ref)
			return
		}
		v.validate(def, x, path)
		return
	}
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kw := s[k]
		switch k {
		case "type":
			types, ok := kw.([]any)
			if !ok {
				types = []any{kw}
			}
			if !slices.ContainsFunc(types, func(t any) bool { return hasType(x, t.(string)) }) {
				v.fail(path, "%s is not of type %v", show(mustJSON(x)), kw)
			}
		case "enum":
			if !slices.ContainsFunc(kw.([]any), func(e any) bool { return jsonEqual(e, x) }) {
				v.fail(path, "%s is not one of %v", show(mustJSON(x)), kw)
			}
		case "required":
			if o, ok := x.(map[string]any); ok {
				for _, r := range kw.([]any) {
					if _, ok := o[r.(string)]; !ok {
						v.fail(path, "required property %q is missing", r)
					}
				}
			}
		case "properties", "additionalProperties":
			o, ok := x.(map[string]any)
			if !ok || k == "additionalProperties" && s["properties"] != nil {
				continue // checked with properties
			}
			props, _ := s["properties"].(map[string]any)
			for name, val := range o {
				if ps, ok := props[name].(map[string]any); ok {
					v.validate(ps, val, path+"."+name)
					continue
				}
				switch ap := s["additionalProperties"].(type) {
				case bool:
					if !ap {
						v.fail(path, "property %q is not allowed", name)
					}
				case map[string]any:
					v.validate(ap, val, path+"."+name)
				}
			}
		case "items":
			if a, ok := x.([]any); ok {
				for i, e := range a {
					v.validate(kw.(map[string]any), e, fmt.Sprintf("%s[%d]", path, i))
				}
			}
		case "minItems":
			if a, ok := x.([]any); ok && float64(len(a)) < number(kw) {
				v.fail(path, "%d items, fewer than %v", len(a), kw)
			}
		case "uniqueItems":
			if a, ok := x.([]any); ok && kw.(bool) {
				for i := range a {
					for j := range i {
						if jsonEqual(a[i], a[j]) {
							v.fail(path, "items %d and %d are equal", j, i)
						}
					}
				}
			}
		case "minimum", "maximum":
			if n, ok := x.(json.Number); ok {
				f, _ := n.Float64()
				if k == "minimum" && f < number(kw) || k == "maximum" && f > number(kw) {
					v.fail(path, "%s is beyond the %s %v", n, k, kw)
				}
			}
		case "pattern":
			if str, ok := x.(string); ok && !regexp.MustCompile(kw.(string)).MatchString(str) {
				v.fail(path, "%q does not match %q", str, kw)
			}
		case "format":
			if str, ok := x.(string); ok {
				v.format(kw.(string), str, path)
			}
		case "anyOf", "oneOf":
			matched := 0
			for _, alt := range kw.([]any) {
				w := &schemaValidator{root: v.root}
				w.validate(alt.(map[string]any), x, path)
				if len(w.errors) == 0 {
					matched++
				}
			}
			if matched == 0 || k == "oneOf" && matched > 1 {
				v.fail(path, "%d of the %s alternatives match", matched, k)
			}
		default:
			if !annotations[k] {
				v.fail(path, "schema: keyword %q is not checked by this validator", k)
			}
		}
	}
}

// format checks the formats the SARIF schema names.
func (v *schemaValidator) format(format, s, path string) {
	switch format {
	case "uri":
		if u, err := url.Parse(s); err != nil || !u.IsAbs() {
			v.fail(path, "%q is not an absolute URI", s)
		}
	case "uri-reference":
		if _, err := url.Parse(s); err != nil || strings.ContainsAny(s, " \\<>\"") {
			v.fail(path, "%q is not a URI reference", s)
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
			v.fail(path, "%q is not a date-time", s)
		}
	default:
		v.fail(path, "schema: format %q is not checked by this validator", format)
	}
}

func hasType(x any, t string) bool {
	switch t {
	case "object":
		_, ok := x.(map[string]any)
		return ok
	case "array":
		_, ok := x.([]any)
		return ok
	case "string":
		_, ok := x.(string)
		return ok
	case "boolean":
		_, ok := x.(bool)
		return ok
	case "null":
		return x == nil
	case "number":
		_, ok := x.(json.Number)
		return ok
	case "integer":
		n, ok := x.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == math.Trunc(f)
	}
	return false
}

func number(x any) float64 {
	switch n := x.(type) {
	case json.Number:
		f, _ := n.Float64()
		return f
	case float64:
		return n
	}
	return math.NaN()
}

func mustJSON(x any) []byte {
	b, _ := json.Marshal(x)
	return b
}

func jsonEqual(a, b any) bool {
	if na, ok := a.(json.Number); ok {
		nb, ok := b.(json.Number)
		return ok && number(na) == number(nb)
	}
	return bytes.Equal(mustJSON(a), mustJSON(b))
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value:\n%s", b)
	}
	return x
}

func sarifValidator(t *testing.T) *schemaValidator {
	t.Helper()
	b, err := os.ReadFile("testdata/sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return &schemaValidator{root: decodeJSON(t, b).(map[string]any)}
}

// checkSARIF validates a SARIF log against the schema and returns its
// errors.
func checkSARIF(t *testing.T, log []byte) []string {
	t.Helper()
	v := sarifValidator(t)
	v.validate(v.root, decodeJSON(t, log), "$")
	return v.errors
}

// The validator refuses what the schema refuses, so that a passing
// -sarif test means something.
func TestSARIFValidator(t *testing.T) {
	good := `{"version":"2.1.0","runs":[{"tool":{"driver":{"name":"x"}},"results":[{"ruleId":"r","level":"warning","message":{"text":"m"},"locations":[{"physicalLocation":{"artifactLocation":{"uri":"a%20b.jsonl"},"region":{"startLine":3}}}]}]}]}`
	if errs := checkSARIF(t, []byte(good)); len(errs) != 0 {
		t.Fatalf("a valid log: %q", errs)
	}
	bad := []struct{ name, from, to, want string }{
		{"version", `"version":"2.1.0"`, `"version":"2.2.0"`, "is not one of"},
		{"no version", `"version":"2.1.0",`, ``, `required property "version"`},
		{"level", `"level":"warning"`, `"level":"info"`, "is not one of"},
		{"no message text", `"message":{"text":"m"}`, `"message":{}`, "alternatives match"},
		{"line 0", `"startLine":3`, `"startLine":0`, "beyond the minimum"},
		{"fractional line", `"startLine":3`, `"startLine":3.5`, "is not of type"},
		{"unknown member", `"ruleId":"r"`, `"ruleId":"r","ruleName":1`, `property "ruleName" is not allowed`},
		{"uri", `"uri":"a%20b.jsonl"`, `"uri":"a b.jsonl"`, "not a URI reference"},
		{"no driver name", `"driver":{"name":"x"}`, `"driver":{}`, `required property "name"`},
		{"duplicate tags", `"ruleId":"r"`, `"ruleId":"r","properties":{"tags":["a","a"]}`, "are equal"},
	}
	for _, b := range bad {
		log := strings.Replace(good, b.from, b.to, 1)
		if log == good {
			t.Fatalf("%s: %q not in the log", b.name, b.from)
		}
		errs := checkSARIF(t, []byte(log))
		if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, b.want) }) {
			t.Errorf("%s: errors %q, want one with %q", b.name, errs, b.want)
		}
	}
}

// check -sarif writes a log the schema accepts, with one result per
// finding carrying what -json prints, and exits as check does without it.
func TestSARIF(t *testing.T) {
	cases := [][]string{
		{"testdata/answered-twice.jsonl"},
		{"testdata/duplicate.jsonl", "testdata/bodyless.har"},
		{"testdata/gateway-handwritten.har"},
		{"testdata/clean.jsonl"},
		{"testdata/claude-desktop-mcp.log"},
		{"testdata/clean.jsonl", "testdata/no such file.jsonl"},
		{"-"},
	}
	for _, files := range cases {
		t.Run(strings.Join(files, ","), func(t *testing.T) {
			stdin := func() *bytes.Reader {
				b, err := os.ReadFile("testdata/unmatched.jsonl")
				if err != nil {
					t.Fatal(err)
				}
				return bytes.NewReader(b)
			}
			wantCode, jsonOut, jsonErr := runCmd(t, stdin(), append([]string{"check", "-json"}, files...)...)
			code, out, errOut := runCmd(t, stdin(), append([]string{"check", "-sarif"}, files...)...)
			if code != wantCode || errOut != jsonErr {
				t.Errorf("-sarif: exit %d, stderr %q; -json: exit %d, stderr %q", code, errOut, wantCode, jsonErr)
			}
			if errs := checkSARIF(t, []byte(out)); len(errs) != 0 {
				t.Fatalf("the log does not follow the SARIF 2.1.0 schema:\n%s\n%s", strings.Join(errs, "\n"), out)
			}
			var log struct {
				Schema string `json:"$schema"`
				Runs   []struct {
					Results []struct {
						RuleID    string
						RuleIndex int
						Level     string
						Message   struct{ Text string }
						Locations []struct {
							PhysicalLocation struct {
								ArtifactLocation struct{ URI string }
								Region           *struct{ StartLine int }
							}
							LogicalLocations []struct{ Name string }
						}
						Properties map[string]json.RawMessage
					}
					Tool struct {
						Driver struct{ Rules []struct{ ID string } }
					}
					Invocations []struct{ ExitCode int }
				}
			}
			if err := json.Unmarshal([]byte(out), &log); err != nil {
				t.Fatal(err)
			}
			if log.Schema != sarifSchema || len(log.Runs) != 1 {
				t.Fatalf("$schema %q, %d runs", log.Schema, len(log.Runs))
			}
			run := log.Runs[0]
			if len(run.Invocations) != 1 || run.Invocations[0].ExitCode != code {
				t.Errorf("invocations %+v, want exit code %d", run.Invocations, code)
			}
			var findings []finding
			for _, line := range strings.SplitAfter(jsonOut, "\n") {
				if line == "" {
					continue
				}
				var f finding
				if err := json.Unmarshal([]byte(line), &f); err != nil {
					t.Fatal(err)
				}
				findings = append(findings, f)
			}
			if len(run.Results) != len(findings) {
				t.Fatalf("%d results, %d findings", len(run.Results), len(findings))
			}
			for i, r := range run.Results {
				f := findings[i]
				if r.RuleID != f.Kind || run.Tool.Driver.Rules[r.RuleIndex].ID != f.Kind || r.Level != f.Level || r.Message.Text != f.Message {
					t.Errorf("result %d: %s (rule %d) %s %q; finding %s %s %q", i, r.RuleID, r.RuleIndex, r.Level, r.Message.Text, f.Kind, f.Level, f.Message)
				}
				loc := r.Locations[0]
				uri := loc.PhysicalLocation.ArtifactLocation.URI
				if f.File == "<stdin>" && uri != "-" || f.File != "<stdin>" && uri != (&url.URL{Path: filepath.ToSlash(f.File)}).EscapedPath() {
					t.Errorf("result %d: uri %q for %q", i, uri, f.File)
				}
				switch {
				case f.Entry > 0:
					if len(loc.LogicalLocations) != 1 || loc.LogicalLocations[0].Name != fmt.Sprintf("entry %d", f.Entry) || loc.PhysicalLocation.Region != nil {
						t.Errorf("result %d: %+v for entry %d", i, loc, f.Entry)
					}
				case f.Line > 0:
					if loc.PhysicalLocation.Region == nil || loc.PhysicalLocation.Region.StartLine != f.Line {
						t.Errorf("result %d: %+v for line %d", i, loc, f.Line)
					}
				}
				if f.ID != nil && !bytes.Equal(r.Properties["id"], f.ID) {
					t.Errorf("result %d: properties.id %s, want %s", i, r.Properties["id"], f.ID)
				}
				for _, k := range []string{"file", "line", "entry", "level", "kind", "message"} {
					if _, ok := r.Properties[k]; ok {
						t.Errorf("result %d: properties repeat %q", i, k)
					}
				}
			}
		})
	}
	if code, _, errOut := runCmd(t, nil, "check", "-json", "-sarif", "testdata/clean.jsonl"); code != 2 || !strings.Contains(errOut, "cannot be used together") {
		t.Errorf("-json -sarif: exit %d, %q", code, errOut)
	}
}
