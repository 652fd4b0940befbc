package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestHelpInStep keeps each command's -h and its reference in step: the
// screen fits one terminal page and names the reference on its last line,
// the reference shows the synopsis, and every flag the command's package
// defines is in both. (The finding kinds of check: TestHelpKinds in its
// package.)
func TestHelpInStep(t *testing.T) {
	referenced := 0
	for _, c := range commands {
		code, out, errOut := runCmd(t, nil, c.Name, "-h")
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if code != 0 || errOut != "" || !strings.HasPrefix(out, "usage: rpcid "+c.Name) {
			t.Errorf("rpcid %s -h = %d, stderr %q; want 0 and a screen starting %q", c.Name, code, errOut, "usage: rpcid "+c.Name)
		}
		if len(lines) > 80 {
			t.Errorf("rpcid %s -h prints %d lines, want at most 80", c.Name, len(lines))
		}
		if c.Reference == "" {
			continue
		}
		referenced++
		if last := lines[len(lines)-1]; !strings.Contains(last, c.Reference) {
			t.Errorf("rpcid %s -h ends with %q, want a line naming %s", c.Name, last, c.Reference)
		}
		b, err := os.ReadFile(filepath.Join("..", "..", c.Reference))
		if err != nil {
			t.Fatal(err)
		}
		doc := strings.Join(strings.Fields(string(b)), " ")
		for _, syn := range strings.Split(c.UsageLine, "\n") {
			if syn = strings.Join(strings.Fields(syn), " "); !strings.Contains(doc, syn) {
				t.Errorf("%s does not show the synopsis %q", c.Reference, syn)
			}
		}
		flags := definedFlags(t, filepath.Join("internal", c.Name))
		if len(flags) == 0 {
			t.Errorf("found no flag defined in internal/%s", c.Name)
		}
		for _, f := range flags {
			word := regexp.MustCompile(`(^|[^\w-])-` + regexp.QuoteMeta(f) + `\b`)
			if !word.MatchString(out) {
				t.Errorf("rpcid %s -h does not name its flag -%s", c.Name, f)
			}
			if !word.MatchString(doc) {
				t.Errorf("%s does not name the flag -%s", c.Reference, f)
			}
		}
	}
	if referenced < 2 {
		t.Errorf("%d commands name a reference, want check and proxy at least", referenced)
	}
}

// definedFlags returns the names of the flags that the Go files of dir
// (tests aside) define with the flag package's methods, such as
// fs.Bool("json", ...) and fs.IntVar(&n, "max-pending", ...).
func definedFlags(t *testing.T, dir string) []string {
	t.Helper()
	// The position of the name among the arguments, by method.
	namePos := map[string]int{}
	for _, m := range []string{"Bool", "Duration", "Float64", "Int", "Int64", "String", "Uint", "Uint64", "Func", "BoolFunc", "TextVar"} {
		namePos[m] = 0
		namePos[m+"Var"] = 1
	}
	namePos["Var"], namePos["TextVar"], namePos["Func"], namePos["BoolFunc"] = 1, 1, 0, 0
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			i, ok := namePos[sel.Sel.Name]
			if !ok || len(call.Args) <= i {
				return true
			}
			if lit, ok := call.Args[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && !slices.Contains(names, s) {
					names = append(names, s)
				}
			}
			return true
		})
	}
	return names
}
