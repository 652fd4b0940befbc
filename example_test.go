package rpcid_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/rpcid/rpcid"
)

// A client sent request 0; a gateway turned the id into a string on the way
// back. Comparing the Go values fails, Equal matches them, and nothing matches
// the spellings that loose number parsers would also accept.
func Example() {
	sent := rpcid.Int(0)
	for _, received := range []string{`0`, `"0"`, `"00"`, `"-0"`, `""`, `" 0"`, `0.0`} {
		id := rpcid.MustParse(received)
		fmt.Printf("%-5s ==: %-5v Equal: %v\n", received, id == sent, rpcid.Equal(sent, id))
	}
	// Output:
	// 0     ==: true  Equal: true
	// "0"   ==: false Equal: true
	// "00"  ==: false Equal: false
	// "-0"  ==: false Equal: false
	// ""    ==: false Equal: false
	// " 0"  ==: false Equal: false
	// 0.0   ==: true  Equal: true
}

func ExampleParse() {
	for _, raw := range []string{`7`, `7.0`, `"7"`, `1.50`, `9007199254740993`, `null`, `true`, `01`} {
		id, err := rpcid.Parse([]byte(raw))
		if err != nil {
			fmt.Printf("%-18s error: %v (ErrType: %v)\n", raw, err, errors.Is(err, rpcid.ErrType))
			continue
		}
		fmt.Printf("%-18s %-6v %v\n", raw, id.Kind(), id)
	}
	// Output:
	// 7                  int    7
	// 7.0                int    7
	// "7"                string "7"
	// 1.50               number 1.50
	// 9007199254740993   int    9007199254740993
	// null               null   null
	// true               error: rpcid: Parse "true": true cannot be an id at byte offset 0: value cannot be an id (ErrType: true)
	// 01                 error: rpcid: Parse "01": invalid character '1' after value at byte offset 1: invalid JSON (ErrType: false)
}

func ExampleEqual() {
	pairs := [][2]string{
		{`1`, `"1"`},
		{`1`, `"01"`},
		{`1`, `"+1"`},
		{`10`, `"1_0"`},
		{`1.5`, `15e-1`},
		{`1.5`, `"1.5"`},
		{`"a"`, `"\u0061"`},
		{`null`, `0`},
	}
	for _, p := range pairs {
		a, b := rpcid.MustParse(p[0]), rpcid.MustParse(p[1])
		fmt.Printf("%s %s %v\n", p[0], p[1], rpcid.Equal(a, b))
	}
	// Output:
	// 1 "1" true
	// 1 "01" false
	// 1 "+1" false
	// 10 "1_0" false
	// 1.5 15e-1 true
	// 1.5 "1.5" false
	// "a" "\u0061" true
	// null 0 false
}

// Keys index a map by the matching rule.
func ExampleID_Key() {
	names := map[rpcid.Key]string{
		rpcid.Int(1).Key():          "initialize",
		rpcid.String("req-2").Key(): "tools/list",
	}
	for _, raw := range []string{`"1"`, `1.0`, `"req-2"`, `"01"`} {
		id := rpcid.MustParse(raw)
		name, ok := names[id.Key()]
		fmt.Printf("%-7s key %-7v %q %v\n", raw, id.Key(), name, ok)
	}
	// Output:
	// "1"     key 1       "initialize" true
	// 1.0     key 1       "initialize" true
	// "req-2" key "req-2" "tools/list" true
	// "01"    key "01"    "" false
}

// A client's response loop: requests in flight are kept in a Pending table,
// and each response is matched by its raw id, whatever form it comes back in.
func ExamplePending() {
	var inFlight rpcid.Pending[string] // value: the method, for this example
	for i, method := range []string{"initialize", "tools/list", "tools/call"} {
		if err := inFlight.Add(rpcid.Int(int64(i)), method); err != nil {
			panic(err)
		}
	}

	responses := []string{
		`{"jsonrpc":"2.0","id":"0","result":{}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`,
		`{"jsonrpc":"2.0","id":"01","result":{}}`,
		`{"jsonrpc":"2.0","id":"1","result":{}}`,
	}
	for _, body := range responses {
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(body), &msg); err != nil {
			panic(err)
		}
		sent, method, ok := inFlight.TakeJSON(msg.ID)
		if !ok {
			fmt.Printf("id %s: no request in flight\n", msg.ID)
			continue
		}
		fmt.Printf("id %s answers %s (sent as %v)\n", msg.ID, method, sent)
	}
	fmt.Println("still pending:", inFlight.Len())
	// Output:
	// id "0" answers initialize (sent as 0)
	// id 2 answers tools/call (sent as 2)
	// id "01": no request in flight
	// id "1" answers tools/list (sent as 1)
	// still pending: 0
}

// TakeJSONMatch tells a response to a request in flight from one that
// matches none, a null id (the server could not read a request) and an id
// that is not valid, from one scan of the id.
func ExamplePending_TakeJSONMatch() {
	var inFlight rpcid.Pending[string]
	if err := inFlight.Add(rpcid.Int(1), "tools/list"); err != nil {
		panic(err)
	}
	for _, raw := range []string{`"1"`, `"1"`, `null`, `"01"`, `[1]`} {
		sent, method, m, err := inFlight.TakeJSONMatch([]byte(raw))
		switch m {
		case rpcid.MatchTaken:
			fmt.Printf("%-4s %v: answers %s, sent as %v\n", raw, m, method, sent)
		case rpcid.MatchNotPending:
			fmt.Printf("%-4s %v: answered already, never sent, or changed in transit\n", raw, m)
		case rpcid.MatchNullID:
			fmt.Printf("%-4s %v: the server could not read a request; fail what it may be\n", raw, m)
		case rpcid.MatchInvalidID:
			fmt.Printf("%-4s %v: %v\n", raw, m, err)
		}
	}
	// Output:
	// "1"  taken: answers tools/list, sent as 1
	// "1"  not pending: answered already, never sent, or changed in transit
	// null null id: the server could not read a request; fail what it may be
	// "01" not pending: answered already, never sent, or changed in transit
	// [1]  invalid id: rpcid: Pending.TakeJSONMatch "[1]": array cannot be an id at byte offset 0: value cannot be an id
}

// IDs that an SDK already decoded into interface values, as encoding/json
// does by default.
func ExampleFromAny() {
	var msg map[string]any
	if err := json.Unmarshal([]byte(`{"jsonrpc":"2.0","id":7}`), &msg); err != nil {
		panic(err)
	}
	id, err := rpcid.FromAny(msg["id"]) // float64(7)
	fmt.Println(id, id.Kind(), err, rpcid.Equal(id, rpcid.String("7")))

	_, err = rpcid.FromAny(true)
	fmt.Println(errors.Is(err, rpcid.ErrType))
	// Output:
	// 7 int <nil> true
	// true
}

// AppendJSON writes an id back in the form it was received, into a caller's
// buffer.
func ExampleID_AppendJSON() {
	buf := []byte(`{"jsonrpc":"2.0","id":`)
	buf = rpcid.MustParse(`"a\u00e9\n"`).AppendJSON(buf)
	buf = append(buf, `,"result":null}`...)
	fmt.Println(string(buf))
	// Output:
	// {"jsonrpc":"2.0","id":"aé\n","result":null}
}

// The ID type works as a struct field with encoding/json: a missing id stays
// absent, and null is kept as null.
func ExampleID_UnmarshalJSON() {
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":"1","result":{}}`,
	} {
		var msg struct {
			ID rpcid.ID `json:"id"`
		}
		if err := json.Unmarshal([]byte(body), &msg); err != nil {
			panic(err)
		}
		fmt.Println(msg.ID.Kind(), msg.ID)
	}
	// Output:
	// absent absent
	// null null
	// string "1"
}
