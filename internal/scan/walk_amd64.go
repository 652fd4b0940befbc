//go:build !purego

package scan

import "os"

// walkAMD64 is scanner.walk in assembly (walk_amd64.s), with its state in
// r rather than in arguments and results; it needs nothing beyond amd64.
//
//go:noescape
func walkAMD64(s *scanner, ix *index, r *walkRegs, depth int)

// cpuidBMI1 reports whether the processor has BMI1.
func cpuidBMI1() bool

// canWalkAsm reports whether walkAMD64 can run: where the processor has
// BMI1, as every processor with AVX2 that Intel and AMD have made does
// (container runs only where there is AVX2); GODEBUG=cpu.bmi1=off turns
// it off. walkAsm reports whether
// container walks with it; tests set it to false to hold the assembly to
// scanner.walk.
var canWalkAsm = cpuidBMI1() && cpuOn(os.Getenv("GODEBUG"), "bmi1")

var walkAsm = canWalkAsm

// walkOn runs walk from r, in assembly where walkAsm is set.
func (s *scanner) walkOn(ix *index, r *walkRegs, depth int) {
	if walkAsm {
		walkAMD64(s, ix, r, depth)
		return
	}
	r.at, r.p, r.t, r.base, r.d, r.obj = s.walk(ix, r.at, r.p, r.t, r.base, r.d, r.obj, depth)
}
