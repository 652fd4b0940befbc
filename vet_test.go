package rpcid_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestVetReportsCopiedPending proves that go vet's copylocks check reports
// a copied Pending: it runs go vet on a small module that imports
// this one through a replace directive. One package copies a Pending in two
// common ways and must be reported at both lines; the other uses pointers
// and must pass, so that the test cannot pass because vet failed for some
// other reason.
func TestVetReportsCopiedPending(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a temporary module and runs go vet on it; skipped in -short mode")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH, so go vet cannot be run: ", err)
	}
	root, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/vetpending\n\ngo 1.23\n\nrequire github.com/rpcid/rpcid v0.0.0\n\n" +
			"replace github.com/rpcid/rpcid => " + filepath.ToSlash(root) + "\n",
		"go.sum": string(sum),
		"copies/copies.go": `package copies

import "github.com/rpcid/rpcid"

type Client struct{ inFlight rpcid.Pending[chan int] }

func (c Client) Waiting() int { return c.inFlight.Len() } // line 7: a value receiver copies the table

func Snapshot(p *rpcid.Pending[int]) int {
	q := *p // line 10: two tables sharing maps
	return q.Len()
}
`,
		"pointers/pointers.go": `package pointers

import "github.com/rpcid/rpcid"

type Client struct{ inFlight rpcid.Pending[chan int] }

func (c *Client) Waiting() int { return c.inFlight.Len() }

func Snapshot(p *rpcid.Pending[int]) int {
	q := p
	return q.Len()
}
`,
	}
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vet := func(pkg string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, gobin, "vet", pkg)
		cmd.Dir = dir
		// -mod=mod: this module's go.sum covers the test-only requirements
		// that the temporary module's graph also lists.
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	out, err := vet("./pointers")
	if err != nil {
		t.Fatalf("go vet ./pointers (no copies) failed: %v\n%s", err, out)
	}
	out, err = vet("./copies")
	if err == nil {
		t.Fatalf("go vet ./copies reported nothing; want copylocks reports at lines 7 and 10\n%s", out)
	}
	for _, want := range []string{
		"copies.go:7:", "Waiting passes lock by value",
		"copies.go:10:", "assignment copies lock value to q",
		"github.com/rpcid/rpcid.Pending[int] contains github.com/rpcid/rpcid.noCopy",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("go vet ./copies output lacks %q:\n%s", want, out)
		}
	}
}
