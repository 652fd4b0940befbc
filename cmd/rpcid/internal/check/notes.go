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

// note returns the index+1 of a note in nb.notes, adding it if new.
func (nb *noteBook) note(text string) uint32 {
	i, ok := nb.noteIndex[text]
	if !ok {
		if len(nb.notes) >= 4096 {
			return 0 // so many distinct HTTP statuses: no note, and bounded memory
		}
		nb.notes = append(nb.notes, text)
		i = uint32(len(nb.notes))
		nb.noteIndex[text] = i
	}
	return i
}
