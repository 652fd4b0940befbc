package check

// noteBook holds the notes that say why requests may have gone unanswered,
// each once (see note).
type noteBook struct {
	notes     []string
	noteIndex map[string]uint32
	noBody    map[uint32]bool // notes of HAR responses without a body
	noAnswer  map[uint32]bool // notes of HAR 2xx responses whose body held no answer
	accepted  uint32          // the note of requests answered 202 Accepted in a HAR, or 0
	noContent uint32          // the note of requests answered 204 No Content in a HAR, or 0
}

// posAt returns the position of line or entry n.
func (s *capture) posAt(n int64) position {
	if s.har {
		return position{entry: int(n)}
	}
	return position{line: int(n)}
}

// answeredAt returns where the answered request x got its answer.
func (s *capture) answeredAt(x ref) position {
	if s.har {
		return position{entry: int(s.t.at(x).ans())}
	}
	return position{line: int(s.t.at(x).ans())}
}

// note returns the index+1 of a note in s.notes, adding it if new.
func (s *capture) note(text string) uint32 {
	i, ok := s.noteIndex[text]
	if !ok {
		if len(s.notes) >= 4096 {
			return 0 // so many distinct HTTP statuses: no note, and bounded memory
		}
		s.notes = append(s.notes, text)
		i = uint32(len(s.notes))
		s.noteIndex[text] = i
	}
	return i
}
