package check

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/rpcid/rpcid/cmd/rpcid/internal/base"
)

// finish reports the HAR responses that never found a request and the
// requests never answered, in the order they were sent.
func (s *capture) finish() {
	// A capture of only tail headers is JSON Lines (s.log is logNone).
	s.replayHeld()
	s.c.logOther += s.logOther
	s.final = true
	for i := range s.deferred {
		if d := &s.deferred[i]; !d.taken {
			if d.p != nil {
				s.useSession(s.sessionFor(d))
			}
			if d.undelivered {
				sd := &s.t.sides[d.side]
				if x, ok := sd.get(keyOf(d.id)); ok && s.t.at(x).flags&(fAnswered|fNullNote) == 0 {
					s.t.at(x).note = d.why // pending still
					continue
				}
			}
			s.reqNote = d.note
			s.response(d.pos, d.side == 0, d.id, []byte(d.raw), nil)
			s.reqNote = 0
		}
	}
	s.reportOpen(s.sessions)
	if s.messages == 0 {
		s.nothingToCheck()
	}
}

// reportOpen reports the requests of sessions (none: of the capture's only
// table) never answered, in the order they were sent.
func (s *capture) reportOpen(sessions []*mcpSession) {
	type openRequest struct {
		p *mcpSession
		x ref
	}
	var open []openRequest
	if len(sessions) == 0 {
		sessions = []*mcpSession{nil}
	}
	for _, p := range sessions {
		if p != nil {
			s.useSession(p)
		}
		for i := range s.t.slab {
			if r := &s.t.slab[i]; r.flags&fLive != 0 && r.flags&fAnswered == 0 {
				open = append(open, openRequest{s.p, ref(i)})
			}
		}
	}
	slices.SortFunc(open, func(a, b openRequest) int {
		// seq counts the requests of the whole capture.
		ra, rb := a.p.request(s, a.x), b.p.request(s, b.x)
		if ra.pos != rb.pos {
			return cmp.Compare(ra.pos, rb.pos)
		}
		return cmp.Compare(ra.seq, rb.seq)
	})
	for _, o := range open {
		if o.p != nil {
			s.useSession(o.p)
		}
		x := o.x
		r := s.t.at(x)
		// The GET event stream without its body that may have carried the
		// answer: its session's, or else another's (an HTTP+SSE endpoint
		// event may send the POSTs to another host).
		lost := s.lostStream
		lostWhat := fmt.Sprintf("the event stream at entry %d", lost)
		if lost == 0 && s.firstLost > 0 {
			lost = s.firstLost
			lostWhat = fmt.Sprintf("the event stream at entry %d (which the capture does not tie to this session)", lost)
		}
		if r.flags&fCancelled != 0 {
			continue
		}
		f := &finding{ID: r.raw(), Method: s.t.method(x), Request: s.ref(x)}
		msg := fmt.Sprintf("%s %s (%s) was never answered", reqWord(r.flags&fServer != 0), show(r.raw()), s.t.method(x))
		nullNote := func() string {
			at := s.posAt(int64(r.note))
			if r.flags&fIdless != 0 {
				return fmt.Sprintf("the response without an \"id\" member at %s is likely its answer, which left its id out", at)
			}
			if r.flags&fNullMaybe != 0 {
				return fmt.Sprintf("the response with a null id at %s may be its answer", at)
			}
			return fmt.Sprintf("the response with a null id at %s is likely its answer", at)
		}
		lostWhy := ""
		if !(r.flags&fNullNote == 0 && s.noBody[r.note]) {
			lostWhy = s.lostFor(x)
		}
		switch {
		case r.flags&fNullNote == 0 && s.noBody[r.note]:
			// The capture cannot tell whether it was answered.
			f.Note = s.notes[r.note-1]
			msg = fmt.Sprintf("%s %s (%s) has no response in the capture: %s", reqWord(r.flags&fServer != 0), show(r.raw()), s.t.method(x), f.Note)
		case lostWhy != "":
			// A text the capture holds but that could not be read may
			// answer it.
			f.Note = lostWhy
			switch {
			case r.flags&fNullNote != 0:
				f.Note += " (" + nullNote() + ")"
			case r.note > 0:
				f.Note += "; " + s.notes[r.note-1]
			}
			msg = fmt.Sprintf("%s %s (%s) has no response in the capture: %s", reqWord(r.flags&fServer != 0), show(r.raw()), s.t.method(x), f.Note)
		case r.flags&fNullNote == 0 && r.note > 0 && (r.note == s.accepted || r.note == s.noContent) && lost > 0:
			// Its answer was due on an event stream, and one is missing.
			due := "its answer was due"
			if r.note == s.noContent {
				due = "an answer could come only"
			}
			f.Note = fmt.Sprintf("%s, so %s on an event stream, and the body of %s is empty or was left out of the capture", s.notes[r.note-1], due, lostWhat)
			msg = fmt.Sprintf("%s %s (%s) has no response in the capture: %s", reqWord(r.flags&fServer != 0), show(r.raw()), s.t.method(x), f.Note)
		case r.flags&fNullNote == 0 && s.noAnswer[r.note] && lost > 0:
			// Its answer could have come on an event stream that is missing.
			f.Note = fmt.Sprintf("%s, and the body of %s, which may have carried it, is empty or was left out of the capture", s.notes[r.note-1], lostWhat)
			msg = fmt.Sprintf("%s %s (%s) has no response in the capture: %s", reqWord(r.flags&fServer != 0), show(r.raw()), s.t.method(x), f.Note)
		case r.flags&fNullNote == 0 && r.note > 0 && r.note == s.accepted:
			// Every event stream is in the capture: it was never answered.
			f.Note = s.notes[r.note-1] + ", with no answer in its body, and no event stream in the capture carries its answer"
			msg += " (" + f.Note + ")"
		case r.flags&fNullNote != 0:
			f.Note = nullNote()
			msg += " (" + f.Note + ")"
		case r.flags&fTwin != 0 && r.note > 0:
			// Which of the requests with the id the one answer took, the
			// ids cannot tell.
			f.Note = s.notes[r.note-1]
			msg += ", or " + f.Note
		case r.note > 0:
			f.Note = s.notes[r.note-1]
			msg += " (" + f.Note + ")"
		}
		msg = s.withHint(msg, f, x)
		s.report(s.posOf(r), levelError, kindUnanswered, msg, f)
	}
}

// nothingToCheck reports a capture without a JSON-RPC message: an empty
// or truncated capture must not pass as clean.
func (s *capture) nothingToCheck() {
	var what string
	// The file breaks off inside or between its entries: they are those
	// read before it does.
	brokenInEntries := s.harBroken != "" && !s.harBrokenAfterEntries
	switch {
	case s.encoding != "":
		what = s.encoding
	case s.har && s.entries+s.badEntries == 0 && s.harBroken != "" && s.harBrokenAfterEntries:
		what = s.harBroken + ", and it has no entries"
	case s.har && s.entries+s.badEntries == 0 && s.harBroken != "":
		what = s.harBroken + ", and no entry could be read"
	case s.har && s.entries == 0 && s.badEntries > 0:
		// Every entry, for none was read.
		what = "its 1 entry is not a HAR entry"
		if s.badEntries > 1 {
			what = fmt.Sprintf("none of its %d entries is a HAR entry", s.badEntries)
		}
		if brokenInEntries {
			what = "the 1 entry read before the file stops being valid is not a HAR entry"
			if s.badEntries > 1 {
				what = fmt.Sprintf("none of the %d entries read before the file stops being valid is a HAR entry", s.badEntries)
			}
		}
	case s.har && s.entries == 0:
		what = "the HAR file has no entries"
	case s.har:
		// Entries that are not HAR entries count: none of them was read.
		n := s.entries + s.badEntries
		what = fmt.Sprintf("none of its %s has a JSON-RPC 2.0 message", plural(n, "entry"))
		if n == 1 {
			what = "its 1 entry has no JSON-RPC 2.0 message"
		}
		if brokenInEntries {
			what = fmt.Sprintf("none of the %s read before the file stops being valid has a JSON-RPC 2.0 message", plural(n, "entry"))
			if n == 1 {
				what = "the 1 entry read before the file stops being valid has no JSON-RPC 2.0 message"
			}
		}
		var sessions []string
		for _, k := range sortedKeys(s.skipped) {
			sessions = append(sessions, fmt.Sprintf("%d %s", s.skipped[k], k))
		}
		for _, k := range sortedKeys(s.otherEvents) {
			sessions = append(sessions, fmt.Sprintf("%s of type %s", plural(s.otherEvents[k], "event"), base.ShowString(k)))
		}
		if s.skippedFrames > 0 {
			sessions = append(sessions, plural(s.skippedFrames, "WebSocket message")+" without JSON-RPC")
		}
		if len(sessions) > 0 {
			what += " (bodies not examined: " + strings.Join(sessions, ", ") + ")"
		}
		if s.lostSockets > 0 {
			what += fmt.Sprintf("; the messages of its %s are not in the capture", plural(s.lostSockets, "WebSocket connection"))
		}
	case s.nonBlank == 0 && s.bytes == 0:
		what = "the file is empty"
	case s.nonBlank == 0:
		what = "the file has only blank lines"
	case s.log == logHost && s.logMarked > 0:
		what = fmt.Sprintf("it is an MCP host's log (timestamped lines), and none of its %s with \"Message from client:\" or \"Message from server:\" holds a JSON-RPC 2.0 message that could be read", plural(s.logMarked, "line"))
	case s.log == logHost:
		what = fmt.Sprintf("it is an MCP host's log (timestamped lines), and none of its %s holds a message (\"Message from client:\" or \"Message from server:\")", plural(s.nonBlank, "non-blank line"))
	case s.log == logVSCode && s.logMarked > 0:
		what = fmt.Sprintf("it is a log in VS Code's format (timestamped lines), and none of its %s with \"[editor -> server]\" or \"[server -> editor]\" (\"[Client Says]\" or \"[Server Says]\") holds a JSON-RPC 2.0 message that could be read", plural(s.logMarked, "line"))
	case s.log == logVSCode:
		what = fmt.Sprintf("it is a log in VS Code's format (timestamped lines, as VS Code's MCP server output and Cursor's MCP log write them), and none of its %s holds a message (\"[editor -> server]\" or \"[server -> editor]\", which VS Code writes at log level debug, info for a server in dev mode)", plural(s.nonBlank, "non-blank line"))
	default:
		what = fmt.Sprintf("none of its %s is a JSON-RPC 2.0 message", plural(s.nonBlank, "non-blank line"))
		if s.nonBlank == 1 {
			what = "its only non-blank line is not a JSON-RPC 2.0 message"
		}
		if s.loneBracket {
			what += fmt.Sprintf("; its first line is a lone %q, as in JSON printed over several lines (jq without -c): JSON Lines holds one message per line", s.firstByte)
		}
	}
	s.report(position{}, levelError, kindNothing, "nothing to check: "+what, nil)
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
