//go:build amd64 && !purego

package scan

import "testing"

// GODEBUG turns the assembly that needs AVX2 or SSSE3 off as it turns off
// Go's own: cpu.avx2=off, cpu.ssse3=off, cpu.all=off, the last setting
// deciding.
func TestCPUOn(t *testing.T) {
	for _, c := range []struct {
		godebug, feature string
		want             bool
	}{
		{"", "avx2", true},
		{"cpu.avx2=off", "avx2", false},
		{"cpu.avx2=off", "ssse3", true},
		{"gctrace=1,cpu.ssse3=off", "ssse3", false},
		{"cpu.all=off", "avx2", false},
		{"cpu.all=off,cpu.avx2=on", "avx2", true},
		{"cpu.all=off,cpu.avx2=on", "ssse3", false},
		{"cpu.avx2=off,cpu.avx2=on", "avx2", true},
		{"cpu.avx2", "avx2", true},
		{"cpu.avx=off", "avx2", true},
		{"xcpu.avx2=off", "avx2", true},
	} {
		if got := cpuOn(c.godebug, c.feature); got != c.want {
			t.Errorf("cpuOn(%q, %q) = %v, want %v", c.godebug, c.feature, got, c.want)
		}
	}
}
