package check

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestHelpKinds keeps check's usage screen and its reference in step with
// the finding kinds check reports: each kind is on a line of its own in
// -h, with its level, and is an item of docs/check.md's list of kinds.
// (The flags and the synopsis: TestHelpInStep in package main.)
func TestHelpKinds(t *testing.T) {
	code, out, _ := runCmd(t, nil, "check", "-h")
	if code != 0 {
		t.Fatalf("check -h = %d", code)
	}
	b, err := os.ReadFile("../../../../docs/check.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	levels := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 2 && (f[1] == "error" || f[1] == "warning") {
			levels[f[0]] = f[1]
		}
	}
	if len(levels) != len(kinds) {
		t.Errorf("check -h lists %d finding kinds, want the %d of kinds", len(levels), len(kinds))
	}
	for _, k := range kinds {
		level, ok := levels[k]
		if !ok {
			t.Errorf("check -h has no line for the finding kind %s", k)
			continue
		}
		if item := "\n- `" + k + "` (" + level + ")"; !strings.Contains(doc, item) {
			t.Errorf("docs/check.md has no item %q", strings.TrimSpace(item))
		}
	}
}

// TestJSONMembersDocumented checks that docs/check.md names every member
// of the -json objects, nested ones included.
func TestJSONMembersDocumented(t *testing.T) {
	b, err := os.ReadFile("../../../../docs/check.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	seen := map[reflect.Type]bool{}
	n := 0
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			n++
			if !strings.Contains(doc, "`"+name+"`") {
				t.Errorf("docs/check.md does not name the -json member %s (%s.%s)", name, typ.Name(), f.Name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(finding{}))
	if n < 20 {
		t.Errorf("found %d -json members, want the 20 or more of finding", n)
	}
}
