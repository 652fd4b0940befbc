package check

import (
	"fmt"

	"github.com/rpcid/rpcid"
)

// twins notes, on each request still pending with the id key after the
// response at pos answered x (sent first among them), that the ids cannot
// tell which of them that response answers: their unanswered-request
// findings name x as the one that may instead have gone unanswered
// (JSON Lines and logs; in a HAR the HTTP exchange tells).
func (s *capture) twins(sd *side, key idKey, x ref, pos position) {
	t := s.t
	y, ok := sd.get(key)
	if !ok {
		return
	}
	i := s.note(fmt.Sprintf("%s was: both were pending with the same id, and the one response with it (%s) answers either, which the ids alone cannot tell", s.describe(x), pos))
	for ; y != none && i > 0; y = t.at(y).dupNext {
		r := t.at(y)
		if r.flags&(fAnswered|fNullNote) == 0 && r.note == 0 {
			r.note, r.flags = i, r.flags|fTwin
		}
	}
}

// nullTwins returns, when requests other than x are pending with a null
// id beside x (queued behind it), all of them, named for a finding ("request
// null (line 3, b) and request null (line 4, c)"); else "".
func (s *capture) nullTwins(x ref) string {
	t := s.t
	if t.at(x).dupNext == none {
		return ""
	}
	var names []string
	for y := x; y != none && len(names) < 8; y = t.at(y).dupNext {
		names = append(names, s.describe(y))
	}
	if len(names) == 8 {
		names[7] = "more"
	}
	return joinAnd(names)
}

// batchAnswers notes the ids of the responses of a batch (msgs), so that a
// null-id or id-less response among them is not tied to a request that
// another element of the same batch answers (see likely).
func (s *capture) batchAnswers(msgs []fields) {
	clear(s.batchAnswered)
	for i := range msgs {
		m := &msgs[i]
		if !m.object || m.id == nil || m.method != nil || m.result == nil && m.errv == nil {
			continue
		}
		if id, err := rpcid.Parse(m.id); err == nil && id.Kind() != rpcid.KindNull {
			if s.batchAnswered == nil {
				s.batchAnswered = map[idKey]bool{}
			}
			s.batchAnswered[keyOf(id)] = true
		}
	}
}

// answeredInBatch reports whether another response of the batch being read
// has the id of request x.
func (s *capture) answeredInBatch(x ref) bool {
	return len(s.batchAnswered) > 0 && s.batchAnswered[keyOf(s.t.at(x).id())]
}
