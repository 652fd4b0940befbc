// Package conformance measures how real JSON-RPC SDKs match response ids
// to request ids, against the rpcid rule.
//
// Every check comes from rpcidtest: the (sent, received) id pairs that
// rpcidtest.Disagreements derives from the conformance vectors
// (rpcidtest/vectors.json at the repository root), each with the rule's
// answer. Each SDK is run through rpcidtest.Disagreements with a matcher
// that decodes the sent id as the SDK decodes the id of a request message,
// decodes the received id as the SDK's response path does, and looks it up
// as the SDK's table of pending requests does; the file for each SDK names
// the SDK functions it exercises. What the SDK did with each response is an
// Outcome; RESULTS.md counts them against the rule.
//
// The TypeScript SDK is measured by the Node harness in node/, which drives
// the real Client of @modelcontextprotocol/sdk over the case list in
// testdata/cases.json and writes node/results.json; the Go test merges that
// file into RESULTS.md.
//
// Regenerate everything with
//
//	go test -run '^TestResults$' -update .
//
// (which also runs the Node harness when node and node/node_modules are
// present). Without -update the test checks that the committed
// testdata/cases.json and RESULTS.md are exactly what the harness produces.
// The tests assert nothing about whether an SDK is right.
package conformance
