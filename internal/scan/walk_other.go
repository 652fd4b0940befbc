//go:build !amd64 || purego

package scan

// walkAsm is as on amd64: tests may set it, but there is no walk in
// assembly here.
var walkAsm = false

// walkOn runs walk from r.
func (s *scanner) walkOn(ix *index, r *walkRegs, depth int) {
	r.at, r.p, r.t, r.base, r.d, r.obj = s.walk(ix, r.at, r.p, r.t, r.base, r.d, r.obj, depth)
}
