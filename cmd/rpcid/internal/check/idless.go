package check

import (
	"fmt"
	"math"
	"strings"
)

// idless reports a response without an "id" member, read at pos from the
// side dir: not JSON-RPC 2.0 (a response whose request's id could not be
// read has "id": null), and the strongest evidence of what became of a
// request, since peers that cannot read an id (a string where they take
// integers, a null) answer so. Like a null-id response (see nullResponse),
// it is tied to the request it likely answers: in a HAR, a pending request
// of the same HTTP exchange; else the oldest pending request not already
// taken by such a response, whose unanswered-request finding then names it.
func (s *capture) idless(pos position, loc string, dir direction, errRaw []byte) {
	si := sideOf(dir == fromClient) // a response from the client answers the server
	f := s.where()
	msg := loc + `not JSON-RPC 2.0: a response without an "id" member`
	if errRaw != nil {
		info := describeError(errRaw)
		if len(errRaw) <= 1024 {
			f.Error = clone(errRaw)
		}
		msg += " (" + info.text + ")"
	}
	if x, pending := s.likely(si); x != none {
		f.Request = s.ref(x)
		pending = strings.Replace(pending, "a null-id response", "a response without an id", 1)
		msg += "; the peer left out the id of the request it answers, likely " + pending + s.describe(x)
		if n := pos.n(); n <= math.MaxUint32 {
			r := s.t.at(x)
			r.note, r.flags = uint32(n), r.flags|fNullNote|fIdless
		}
		s.t.pendUnlink(&s.t.sides[si], x) // a later such response points at another request
	} else {
		msg += fmt.Sprintf("; no %s was pending for it to answer", reqWord(si == 1))
	}
	s.report(pos, levelError, kindInvalid, msg, f)
}
