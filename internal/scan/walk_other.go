//go:build !amd64 || purego

package scan

// canWalkAsm and walkAsm are as on amd64: there is no walk in assembly
// here.
const canWalkAsm = false

var walkAsm = false

// walkOn runs walk from r.
func (s *scanner) walkOn(ix *index, r *walkRegs, depth int) {
	r.at, r.p, r.t, r.base, r.d, r.obj = s.walk(ix, r.at, r.p, r.t, r.base, r.d, r.obj, depth)
}
