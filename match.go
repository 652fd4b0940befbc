package rpcid

import (
	"iter"
	"strconv"
)

// A Key is the canonical form of an ID under the matching rule: two IDs have
// the same Key exactly when they are Equal. Keys are comparable; use them as
// map keys to look ids up by the rule. The zero Key is the key of the zero
// (absent) ID.
type Key struct {
	// s holds the contents of a non-canonical string, or the canonical
	// number key of a KindNumber.
	s string
	n int64
	// f is formAbsent, formNull, formInt (an integer or a string that
	// spells one canonically), formNumber or formString.
	f form
}

// Key returns the canonical form of id. Computing it allocates nothing.
func (id ID) Key() Key {
	switch id.f {
	case formInt, formIntString:
		return Key{n: id.n, f: formInt}
	case formNumber:
		return Key{s: id.s[id.n:], f: formNumber}
	}
	return Key{s: id.s, f: id.f}
}

// String returns the JSON spelling of k's canonical member, for logs and
// tools: the integer in decimal for an integer or a string that spells one
// canonically (1), the quoted string for another string ("abc"), null, and
// for another number the canonical spelling of its value,
// -?[1-9]([0-9]*[1-9])?(e-?[1-9][0-9]*)? (so 1.50 and 15e-1 are both 15e-1).
// The zero Key is written as absent.
func (k Key) String() string {
	switch k.f {
	case formAbsent:
		return "absent"
	case formNull:
		return "null"
	case formInt:
		return strconv.FormatInt(k.n, 10)
	case formNumber:
		return k.s
	}
	return string(appendQuoted(nil, k.s))
}

// Equal reports whether a and b identify the same request under the rule in
// the package documentation. In short: ids of the same kind are equal when
// their values are (numbers by exact value, strings byte for byte); a string
// equals an integer n only when it is n's canonical decimal spelling
// (0|-?[1-9][0-9]*, ASCII, within int64); nothing else is equal across kinds.
//
// Equal is reflexive, symmetric and transitive, and Equal(a, b) is
// a.Key() == b.Key(). It allocates nothing.
func Equal(a, b ID) bool {
	if a.f == b.f {
		switch a.f {
		case formInt, formIntString:
			return a.n == b.n
		case formString:
			return a.s == b.s
		case formNumber:
			return a.s[a.n:] == b.s[b.n:]
		}
		return true // absent or null
	}
	return (a.f == formInt || a.f == formIntString) && (b.f == formInt || b.f == formIntString) && a.n == b.n
}

// Pending is a table of requests in flight, indexed by id under the matching
// rule: a response whose id is Equal to a pending request's id, in whatever
// form it arrives, finds that request. V is what the caller keeps for each
// request, such as a channel to deliver the response on.
//
// The zero Pending is empty and ready to use. A Pending must not be copied
// after first use: a copy shares the tables the original had made by then
// (one each for integers, other strings and other numbers, made on first
// use) but not those made later, so the two see some of the same requests
// and not others. go vet's copylocks check reports copies. A Pending is not safe
// for concurrent use: like a map, guard it with a mutex when several
// goroutines use it.
type Pending[V any] struct {
	_ noCopy

	ints map[int64]pendingEntry[V]  // integers and canonical integer strings
	strs map[string]pendingEntry[V] // other strings, by contents
	nums map[string]pendingEntry[V] // other numbers, by canonical key
}

// noCopy makes go vet's copylocks check report a copy of the struct that
// holds it: the check looks for Lock and Unlock methods. It takes no space
// and its methods do nothing.
type noCopy struct{}

func (*noCopy) Lock()   {}
func (*noCopy) Unlock() {}

type pendingEntry[V any] struct {
	id ID
	v  V
}

// Add records a request with the given id and value. It returns an *Error
// (Func "Pending.Add") wrapping ErrType if id is absent or null, which no
// response can be matched to (a request without an id is a notification;
// JSON-RPC 2.0 section 5 uses a null response id for requests whose id could
// not be read), or ErrDuplicate if an id Equal to id is already pending; the
// table is then unchanged.
func (p *Pending[V]) Add(id ID, v V) error {
	e := pendingEntry[V]{id, v}
	switch id.f {
	case formInt, formIntString:
		if _, dup := p.ints[id.n]; dup {
			return p.duplicate(id)
		}
		if p.ints == nil {
			p.ints = make(map[int64]pendingEntry[V])
		}
		p.ints[id.n] = e
	case formString:
		if _, dup := p.strs[id.s]; dup {
			return p.duplicate(id)
		}
		if p.strs == nil {
			p.strs = make(map[string]pendingEntry[V])
		}
		p.strs[id.s] = e
	case formNumber:
		k := id.s[id.n:]
		if _, dup := p.nums[k]; dup {
			return p.duplicate(id)
		}
		if p.nums == nil {
			p.nums = make(map[string]pendingEntry[V])
		}
		p.nums[k] = e
	case formNull:
		return idError("Pending.Add", id, ErrType, "no response can be matched to a null id")
	default:
		return idError("Pending.Add", id, ErrType, "no response can be matched to a notification")
	}
	return nil
}

func (p *Pending[V]) duplicate(id ID) error {
	return idError("Pending.Add", id, ErrDuplicate, "an Equal id is in flight")
}

// Take removes the pending request whose id is Equal to id and returns the
// id exactly as it was added, its value and true. If none is pending, it
// returns the zero ID, the zero V and false.
func (p *Pending[V]) Take(id ID) (sent ID, v V, ok bool) {
	var e pendingEntry[V]
	switch id.f {
	case formInt, formIntString:
		if e, ok = p.ints[id.n]; ok {
			delete(p.ints, id.n)
		}
	case formString:
		if e, ok = p.strs[id.s]; ok {
			delete(p.strs, id.s)
		}
	case formNumber:
		k := id.s[id.n:]
		if e, ok = p.nums[k]; ok {
			delete(p.nums, k)
		}
	}
	return e.id, e.v, ok
}

// TakeJSON is Take for an id given as JSON text, such as the raw "id"
// member of a response, with optional whitespace around it. It returns false
// when raw is not a valid id (see Parse), is null, or matches no pending
// request; TakeJSONMatch tells these apart. raw is not retained.
//
// TakeJSON allocates nothing for integers, strings that spell an integer
// canonically, strings without escapes and numbers whose canonical key is
// at most 64 bytes long, whether or not a request matches.
func (p *Pending[V]) TakeJSON(raw []byte) (sent ID, v V, ok bool) {
	sent, v, m, _ := p.takeJSON(raw)
	return sent, v, m == MatchTaken
}

// A Match is what Pending.TakeJSONMatch found for a response id.
type Match uint8

// The outcomes of Pending.TakeJSONMatch. The zero Match is none of them.
const (
	// MatchTaken: the id is Equal to the id of a pending request, which is
	// removed from the table and returned.
	MatchTaken Match = iota + 1
	// MatchNotPending: the id is valid and not null, and no pending
	// request's id is Equal to it: the request was answered or never sent,
	// or the id was changed in transit into a form the rule does not equate
	// (such as "01" for 1). The table is unchanged.
	MatchNotPending
	// MatchNullID: the id is null. A server answers with a null id when it
	// could not read the request's id (JSON-RPC 2.0 section 5: a parse error
	// or an invalid request), so no request can be matched. The table is
	// unchanged.
	MatchNullID
	// MatchInvalidID: the text is not a valid id (see Parse), and the error
	// says why. The table is unchanged.
	MatchInvalidID
)

var matchNames = [...]string{"Match(0)", "taken", "not pending", "null id", "invalid id"}

// String returns "taken", "not pending", "null id" or "invalid id", or
// "Match(N)" for a value outside the constants.
func (m Match) String() string {
	if int(m) < len(matchNames) {
		return matchNames[m]
	}
	return "Match(" + strconv.Itoa(int(m)) + ")"
}

// TakeJSONMatch is TakeJSON that also says why nothing was taken, from the
// one scan of raw:
//   - MatchTaken: sent and v are the request's id, exactly as added, and
//     value, and the request is removed;
//   - MatchNotPending: a valid id that is not null matches no pending
//     request;
//   - MatchNullID: raw is null, with optional whitespace around it;
//   - MatchInvalidID: raw is not a valid id, and err is an *Error (Func
//     "Pending.TakeJSONMatch") wrapping the sentinels listed at Parse.
//
// For every outcome but MatchTaken, sent and v are the zero ID and the zero
// V; err is nil for every outcome but MatchInvalidID. raw is not retained.
// TakeJSONMatch allocates exactly as TakeJSON does for MatchTaken and
// MatchNotPending, and nothing for MatchNullID; only MatchInvalidID
// allocates, for its error.
func (p *Pending[V]) TakeJSONMatch(raw []byte) (sent ID, v V, m Match, err error) {
	sent, v, m, flt := p.takeJSON(raw)
	if m == MatchInvalidID {
		err = newError("Pending.TakeJSONMatch", raw, flt.off, flt.err, flt.detail)
	}
	return sent, v, m, err
}

// takeJSON is TakeJSONMatch without building the error, which TakeJSON
// does not need.
func (p *Pending[V]) takeJSON(raw []byte) (sent ID, v V, m Match, flt fault) {
	var e pendingEntry[V]
	ok := false
	switch n, f := parseFast(raw); f {
	case formInt, formIntString:
		if e, ok = p.ints[n]; ok {
			delete(p.ints, n)
		}
		return e.id, e.v, found(ok), fault{}
	case formNull:
		return ID{}, v, MatchNullID, fault{}
	}
	var w view
	if flt := w.scan(raw); flt.err != nil {
		return ID{}, v, MatchInvalidID, flt
	}
	switch w.f {
	case formNull:
		return ID{}, v, MatchNullID, fault{}
	case formInt, formIntString:
		if e, ok = p.ints[w.n]; ok {
			delete(p.ints, w.n)
		}
	case formString:
		if w.esc {
			sent, v, ok = p.Take(w.id(raw))
			return sent, v, found(ok), fault{}
		}
		if e, ok = p.strs[string(w.raw.of(raw))]; ok {
			delete(p.strs, e.id.s)
		}
	case formNumber:
		var buf [64]byte
		k := w.key.appendTo(buf[:0], raw)
		if e, ok = p.nums[string(k)]; ok {
			delete(p.nums, e.id.s[e.id.n:])
		}
	}
	return e.id, e.v, found(ok), fault{}
}

func found(ok bool) Match {
	if ok {
		return MatchTaken
	}
	return MatchNotPending
}

// Len returns the number of pending requests.
func (p *Pending[V]) Len() int {
	return len(p.ints) + len(p.strs) + len(p.nums)
}

// All returns an iterator over the pending requests' ids, exactly as added,
// and values, in no particular order. Taking requests while iterating is
// allowed: a request taken before the iterator reaches it is not produced.
// It is meant for failing every pending request when a connection closes.
func (p *Pending[V]) All() iter.Seq2[ID, V] {
	return func(yield func(ID, V) bool) {
		for _, e := range p.ints {
			if !yield(e.id, e.v) {
				return
			}
		}
		for _, e := range p.strs {
			if !yield(e.id, e.v) {
				return
			}
		}
		for _, e := range p.nums {
			if !yield(e.id, e.v) {
				return
			}
		}
	}
}
