package conformance

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/cases.json, run the Node harness when node is present, and rewrite RESULTS.md")

const (
	casesFile   = "testdata/cases.json"
	nodeFile    = "node/results.json"
	resultsFile = "RESULTS.md"
)

// TestResults checks that the harness ran every case for every SDK and that
// the committed testdata/cases.json and RESULTS.md are exactly what it
// produces now. It asserts nothing about whether an SDK is right. With
// -update it rewrites them (and node/results.json, when node can run the
// harness).
func TestResults(t *testing.T) {
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	casesJSON := CasesJSON(cases)
	if *update {
		writeFile(t, casesFile, casesJSON)
		runNodeHarness(t)
	} else {
		compareFile(t, casesFile, casesJSON)
	}

	sdks, err := MeasureGo(cases)
	if err != nil {
		t.Fatal(err)
	}
	nodeJSON, err := os.ReadFile(nodeFile)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := ParseNodeResults(nodeJSON, Digest(casesJSON), len(cases))
	if err != nil {
		t.Fatal(err)
	}
	sdks = append(sdks, ts)

	for _, s := range sdks {
		all := TallyOf(s, cases, func(Case) bool { return true })
		if all.Run+all.Skipped != len(cases) {
			t.Errorf("%s: %d checks run and %d skipped, want %d in all", s.Name, all.Run, all.Skipped, len(cases))
		}
		if c := TallyOf(s, cases, Case.Common); c.Skipped != 0 {
			t.Errorf("%s skipped %d checks whose sent id is an integer 0..2^53-1; every client can send those", s.Name, c.Skipped)
		}
	}

	results := Results(cases, sdks)
	if *update {
		writeFile(t, resultsFile, results)
		return
	}
	compareFile(t, resultsFile, results)
}

// runNodeHarness runs node/harness.mjs --write when node and the harness's
// packages (npm ci in node/) are present, and otherwise says why the
// committed node/results.json is kept.
func runNodeHarness(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Logf("node not found: keeping the committed %s (install node, run npm ci in node/, then -update again)", nodeFile)
		return
	}
	if _, err := os.Stat(filepath.Join("node", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Logf("node/node_modules has no @modelcontextprotocol/sdk: keeping the committed %s (run npm ci in node/, then -update again)", nodeFile)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "harness.mjs", "--write")
	cmd.Dir = "node"
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node harness.mjs --write: %v\n%s", err, out)
	}
	t.Logf("node harness.mjs --write: %s", bytes.TrimSpace(out))
}

func writeFile(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func compareFile(t *testing.T, name string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the harness produces: run go test -run '^TestResults$' -update . in conformance/ and commit the result\n%s", name, firstDiff(got, want))
	}
}

// firstDiff describes the first line where the committed file differs.
func firstDiff(got, want []byte) string {
	g, w := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl []byte
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if !bytes.Equal(gl, wl) {
			return fmt.Sprintf("line %d:\n  committed: %s\n  produced:  %s", i+1, gl, wl)
		}
	}
	return "(only line endings differ)"
}

// TestVersionsAreGoMod checks that the versions RESULTS.md reports for the
// Go SDKs are the ones go.mod requires.
func TestVersionsAreGoMod(t *testing.T) {
	mod, err := os.ReadFile("go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range goSDKs {
		want := g.module + " " + g.version
		found := false
		for _, line := range strings.Split(string(mod), "\n") {
			if strings.TrimSpace(strings.SplitN(line, "//", 2)[0]) == want {
				found = true
			}
		}
		if !found {
			t.Errorf("go.mod does not require %s; RESULTS.md would report the wrong version", want)
		}
	}
}

// TestReadmeTable checks that the figures of the root README's table "How
// SDKs behave today" and of the SEP's table (docs/request-id-equality.md,
// "Measured") are those of RESULTS.md: each SDK's row starts with its name
// and version and holds its common and all-checks counts of wrong matches,
// misses and refusals.
func TestReadmeTable(t *testing.T) {
	cases, err := Cases()
	if err != nil {
		t.Fatal(err)
	}
	sdks, err := MeasureGo(cases)
	if err != nil {
		t.Fatal(err)
	}
	nodeJSON, err := os.ReadFile(nodeFile)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := ParseNodeResults(nodeJSON, Digest(CasesJSON(cases)), len(cases))
	if err != nil {
		t.Fatal(err)
	}
	sdks = append(sdks, ts)
	checkMatrix(t, cases, sdks, filepath.Join("..", "README.md"), "\n## How SDKs behave today\n", "(conformance/RESULTS.md)")
	checkMatrix(t, cases, sdks, filepath.Join("..", "docs", "request-id-equality.md"), "\n### Measured\n", "conformance/RESULTS.md)")
}

// checkMatrix checks the table in the section of file that starts with
// heading against RESULTS.md's figures; the section must contain link.
func checkMatrix(t *testing.T, cases []Case, sdks []SDK, file, heading, link string) {
	t.Helper()
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(text), heading)
	if !ok {
		t.Errorf("%s has no section %q", file, strings.TrimSpace(heading))
		return
	}
	section, _, _ = strings.Cut(section, "\n#")
	if !strings.Contains(section, link) {
		t.Errorf("%s: the section does not link to %s", file, link)
	}
	nCommon := 0
	for _, c := range cases {
		if c.Common() {
			nCommon++
		}
	}
	flat := strings.Join(strings.Fields(section), " ")
	for _, want := range []string{commaInt(len(cases)) + " (sent", fmt.Sprintf("the %d whose sent id", nCommon)} {
		if !strings.Contains(flat, want) {
			t.Errorf("%s: the section does not say %q", file, want)
		}
	}
	for _, s := range sdks {
		prefix := "| " + s.Name + " " + s.Version + " |"
		var row string
		for _, line := range strings.Split(section, "\n") {
			if strings.HasPrefix(line, prefix) {
				row = line
			}
		}
		if row == "" {
			t.Errorf("%s: the table has no row starting %q", file, prefix)
			continue
		}
		c := TallyOf(s, cases, Case.Common)
		a := TallyOf(s, cases, func(Case) bool { return true })
		for _, cell := range []string{
			fmt.Sprintf("| %d / %d / %d |", c.WrongMatch, c.Missed, c.Refused),
			fmt.Sprintf("| %d / %d / %d (of %d) |", a.WrongMatch, a.Missed, a.Refused, a.Run),
		} {
			if !strings.Contains(row, cell) {
				t.Errorf("%s: the row for %s %s lacks %q (from RESULTS.md): %s", file, s.Name, s.Version, cell, row)
			}
		}
	}
}

// commaInt writes n with a comma between thousands, as the README does.
func commaInt(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestResultsLinks checks that every relative link in RESULTS.md names a
// file of this directory, as the links to the drop-in normalizers do.
func TestResultsLinks(t *testing.T) {
	text, err := os.ReadFile(resultsFile)
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`\]\(([^)#:]+)(#[^)]*)?\)`).FindAllStringSubmatch(string(text), -1)
	for _, m := range links {
		if _, err := os.Stat(m[1]); err != nil {
			t.Errorf("RESULTS.md links to %s: %v", m[1], err)
		}
	}
	if len(links) < 4 {
		t.Errorf("RESULTS.md has %d relative links; want the README and the three normalizers at least", len(links))
	}
}
