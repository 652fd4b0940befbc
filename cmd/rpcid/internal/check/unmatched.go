package check

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rpcid/rpcid"
	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

// unmatched reports a response whose id matches no pending request, and
// what the lax normalizers would have done with it.
func (s *capture) unmatched(pos position, si int, id rpcid.ID, raw []byte) {
	lax, reqs := s.laxMatches(si, id, raw)
	msg := fmt.Sprintf("response id %s matches no pending request", show(raw))
	if si == 1 {
		msg = fmt.Sprintf("response id %s matches no pending server request", show(raw))
	}
	f := &finding{ID: clone(raw)}
	if lost := max(s.lostStream, s.firstLost); si == 1 && s.har && lost > 0 {
		// The server request it answers may be on an event stream whose
		// body the capture lacks.
		if s.lostStream > 0 {
			lost = s.lostStream
		}
		f.Note = fmt.Sprintf("the body of the event stream at entry %d, which may have carried the server request it answers, is empty or was left out of the capture", lost)
		msg = fmt.Sprintf("response id %s matches no pending server request in the capture: %s", show(raw), f.Note)
	}
	if s.reqNote > 0 {
		// The request it answers may be in a body the capture lacks.
		f.Note = s.notes[s.reqNote-1]
		msg = fmt.Sprintf("response id %s matches no pending request in the capture: %s, and may have held the request it answers", show(raw), f.Note)
	} else if why := s.lostRequest(si, id); why != "" {
		// Or in a text the capture holds but that could not be read.
		f.Note = why
		msg = fmt.Sprintf("response id %s matches no pending %s in the capture: %s", show(raw), reqWord(si == 1), why)
	}
	// Group the normalizers that agree on value, request and verdict.
	for i := 0; i < len(lax); {
		j := i + 1
		for j < len(lax) && reqs[j] == reqs[i] && lax[j].Value == lax[i].Value && lax[j].Verdict == lax[i].Verdict {
			j++
		}
		names := make([]string, 0, j-i)
		for _, l := range lax[i:j] {
			names = append(names, l.Normalizer)
		}
		verb := "reads"
		if j-i > 1 {
			verb = "read"
		}
		msg += fmt.Sprintf("; %s %s it as %s and would deliver it to %s", joinAnd(names), verb, base.Truncate(lax[i].Value, 64), s.describe(reqs[i]))
		if lax[i].Verdict == "malformed" {
			msg += ", accepting a malformed spelling of that id"
		} else {
			msg += ", whose id is different"
		}
		i = j
	}
	if s.log == logHost || s.log == logVSCode {
		if r := s.run; r.at == 0 && r.from > 0 && f.Note == "" {
			// A partial log (tail -n, an excerpt) may have cut the
			// request off.
			f.Note = fmt.Sprintf("the log starts within a run of the server (its lines from %s come before any start of it), so the request it answers may be before the log's first line", position{line: r.from})
			msg += "; " + f.Note
		}
	}
	f.Lax = lax
	s.report(pos, levelError, kindUnmatched, msg, f)
}

// laxMatches returns the pending requests on side si that the lenient
// normalizers of SDKs would match the response id id (raw) to, each with
// the normalizer that would.
func (s *capture) laxMatches(si int, id rpcid.ID, raw []byte) (lax []laxMatch, reqs []ref) {
	t := s.t
	sd := &t.sides[si]
	add := func(name, value string, x ref) {
		verdict := "different"
		if str, ok := id.StringValue(); ok {
			if v, ok := lenientNumber(str); ok && rpcid.Equal(v, t.at(x).id()) {
				verdict = "malformed"
			}
		}
		lax = append(lax, laxMatch{Normalizer: name, Value: value, Verdict: verdict, Request: *s.ref(x)})
		reqs = append(reqs, x)
	}
	numeric := func(r *request) bool { return r.flags&fNumber != 0 }
	if str, ok := id.StringValue(); ok {
		if f := jsNumber(str); !math.IsNaN(f) {
			if x := t.jsFind(sd, f); x != none {
				add("JavaScript Number()", jsString(f), x)
			}
		}
		if v, ok := pyInt(str); ok {
			if pid, err := rpcid.Parse([]byte(v)); err == nil {
				x := t.firstPending(sd, pid, func(r *request) bool {
					return numeric(r) && (r.flags&fInt != 0 || isPlainInt(r.raw()))
				})
				if x != none {
					add("Python int()", v, x)
				}
			}
		}
		if n, ok := rustI64(str); ok {
			x := t.firstPending(sd, rpcid.Int(n), func(r *request) bool { return numeric(r) && isPlainInt(r.raw()) })
			if x != none {
				add("Rust i64::from_str", strconv.FormatInt(n, 10), x)
			}
		}
	} else if isNumber(id) {
		// JSON.parse has already made the id a double; the TypeScript SDK
		// looks that double up among the numeric request ids.
		f := jsValue(raw)
		if x := t.jsFind(sd, f); x != none {
			add("JavaScript JSON.parse", jsString(f), x)
		}
	}
	return lax, reqs
}

// joinAnd joins names as "A", "A and B" or "A, B and C".
func joinAnd(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// show returns JSON text for a message, cut to a readable length.
func show(raw []byte) string {
	s := string(raw)
	if len(raw) > base.ShowMax+8 {
		s = base.Truncate(s, base.ShowMax) + fmt.Sprintf("... (%d bytes)", len(raw))
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}
