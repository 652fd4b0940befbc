package rpcid_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// TestEverythingDocumented checks that every package of the repository,
// nested modules included, has a package comment and that every exported
// identifier has a doc comment, so that pkg.go.dev shows no bare
// names.
func TestEverythingDocumented(t *testing.T) {
	dirs := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dirs[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 2 {
		t.Fatalf("found only %d package directories: the walk is broken", len(dirs))
	}
	for dir := range dirs {
		checkDocumented(t, dir)
	}
}

func checkDocumented(t *testing.T, dir string) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkg, err := doc.NewFromFiles(fset, files, "example.com/"+dir)
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(pkg.Doc) == "" {
		t.Errorf("%s: package %s has no package comment", dir, pkg.Name)
	}
	if pkg.Name == "main" {
		return // a command documents itself in its package comment
	}
	missing := func(what, name string) {
		t.Errorf("%s: exported %s %s has no doc comment", dir, what, name)
	}
	checkValues := func(what string, values []*doc.Value) {
		for _, v := range values {
			if v.Doc != "" {
				continue
			}
			for _, spec := range v.Decl.Specs {
				vs := spec.(*ast.ValueSpec)
				if vs.Doc == nil && vs.Comment == nil {
					for _, n := range vs.Names {
						if n.IsExported() {
							missing(what, n.Name)
						}
					}
				}
			}
		}
	}
	checkValues("const", pkg.Consts)
	checkValues("var", pkg.Vars)
	for _, f := range pkg.Funcs {
		if f.Doc == "" {
			missing("func", f.Name)
		}
	}
	for _, typ := range pkg.Types {
		if typ.Doc == "" {
			missing("type", typ.Name)
		}
		checkValues("const", typ.Consts)
		checkValues("var", typ.Vars)
		for _, f := range typ.Funcs {
			if f.Doc == "" {
				missing("func", f.Name)
			}
		}
		for _, m := range typ.Methods {
			if m.Doc == "" {
				missing("method", typ.Name+"."+m.Name)
			}
		}
		// Exported fields of exported struct types.
		if st, ok := typ.Decl.Specs[0].(*ast.TypeSpec).Type.(*ast.StructType); ok {
			for _, field := range st.Fields.List {
				for _, n := range field.Names {
					if n.IsExported() && field.Doc == nil && field.Comment == nil {
						missing("field", typ.Name+"."+n.Name)
					}
				}
			}
		}
	}
}

// TestDocLinks checks that every relative link in the README and docs/
// names a file of the repository, and that every link to a heading of a
// Markdown file names a heading it has, as GitHub makes their anchors.
func TestDocLinks(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, "README.md", "CHANGELOG.md", "conformance/README.md")
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, file := range files {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(text), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			if path == "" {
				path = file
			} else {
				path = filepath.Join(filepath.Dir(file), path)
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %s: %v", file, target, err)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !hasAnchor(t, path, anchor) {
				t.Errorf("%s: link %s: %s has no heading with that anchor", file, target, path)
			}
		}
	}
}

// hasAnchor reports whether the Markdown file has a heading whose GitHub
// anchor is anchor: lower case, spaces as hyphens, punctuation dropped.
func hasAnchor(t *testing.T, path, anchor string) bool {
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	inCode := false
	for _, line := range strings.Split(string(text), "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(line, "#") {
			continue
		}
		heading := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(heading) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		if b.String() == anchor {
			return true
		}
	}
	return false
}
