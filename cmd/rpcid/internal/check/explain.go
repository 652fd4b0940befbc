package check

import "strconv"

// Explain once: a finding whose message ends in an explanation shared by
// many findings (what SDKs do with such an id) prints it in full the first
// time its kind and explanation appear in a capture, and after that a
// short line naming where it was explained, as compilers explain an error
// code once. -json and -sarif print every message in full.
//
// A finding takes part by setting short, its message without the
// explanation, and why, the explanation (or any text that stands for it):
// findings of one kind with equal why share one full message.

// explained remembers where each kind and explanation was printed in full
// in the capture being checked.
type explained map[string]string

// text returns the message to print for f in text output: in full the
// first time its kind and why appear, else its short form pointing at the
// finding that explained it.
func (e explained) text(f *finding) string {
	if f.why == "" || f.short == "" {
		return f.Message
	}
	key := f.Kind + "\x00" + f.why
	here := "the first " + f.Kind + " finding"
	switch {
	case f.Entry > 0:
		here = "entry " + strconv.Itoa(f.Entry)
	case f.Line > 0:
		here = "line " + strconv.Itoa(f.Line)
	}
	if at, ok := e[key]; ok {
		if at == here {
			// Several findings of one line or entry.
			return f.short + " (explained above)"
		}
		return f.short + " (explained at " + at + ")"
	}
	e[key] = here
	return f.Message
}
