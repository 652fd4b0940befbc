//go:build amd64 && !purego

package scan

import "strings"

// cpuOn reports whether godebug, the value of the GODEBUG environment
// variable, leaves the processor feature named (as the runtime names it:
// "avx2", "ssse3") on, as Go's own assembly reads it: comma-separated
// settings, the last that names the feature or all of them ("cpu.all")
// deciding, "off" turning it off and "on" back on.
func cpuOn(godebug, feature string) bool {
	on := true
	for _, f := range strings.Split(godebug, ",") {
		name, value, _ := strings.Cut(f, "=")
		if name == "cpu."+feature || name == "cpu.all" {
			switch value {
			case "off":
				on = false
			case "on":
				on = true
			}
		}
	}
	return on
}
