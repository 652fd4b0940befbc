// Package scan finds the members that decide a JSON-RPC 2.0 message's
// meaning (id, method, result, error, jsonrpc, params) in one pass over a
// JSON text (two stages over the large arrays and objects that the
// structural index below takes), without decoding anything and without
// allocating.
//
// Scan validates the whole text as strictly as rpcid.Parse validates an id:
// RFC 8259 exactly, and in addition invalid UTF-8 (section 8.1) and \u
// escapes of lone UTF-16 surrogates (section 8.2) are errors, where
// encoding/json accepts both and replaces them with U+FFFD. Like
// encoding/json it refuses nesting deeper than 10000 arrays and objects, so
// every text it accepts is one json.Valid accepts. Member values are only
// checked and skipped; their spans point into the caller's text.
//
// Member names are compared as encoding/json compares them when it decodes
// into a struct: exactly, and also case-insensitively by Unicode simple case
// folding (bytes.EqualFold), so "ID", "Id", "jSONRPC" and "reſult" (U+017F
// LATIN SMALL LETTER LONG S) all count. Message.Dup reports members named
// more than once in this sense and Message.Fold members named by a case
// variant, so that a caller can leave alone a message whose meaning depends
// on which JSON-RPC implementation reads it (JSON-RPC 2.0 member names are
// case-sensitive, encoding/json's matching is not).
//
// On amd64, strings of about 100 bytes or more are checked 64 bytes a
// block, past their first 32 to 40 bytes, in assembly (classify_amd64.s):
// with AVX2 or SSSE3 where the processor has them (found with CPUID), which
// check the UTF-8 of a block too (the method of Keiser and Lemire, 2021),
// else with SSE2, which every amd64 processor has, and UTF-8 one sequence
// at a time. GODEBUG=cpu.avx2=off turns the AVX2 paths off (the structural
// index with them), cpu.ssse3=off the SSSE3 one and cpu.all=off both, as
// they turn off Go's own assembly; cpu.avx512f=off or cpu.avx512bw=off
// keeps the index on AVX2.
// With AVX2 one loop in assembly (stringBlocksAVX2) also finds a block's
// escapes and runs to the first block with a byte to look at; the SSSE3 and
// SSE2 paths classify up to 16 blocks a call and find escapes in Go.
// Where the processor has AVX2 (and PCLMULQDQ, which every such processor
// has), once 16 values inside a member's value (counted at every depth)
// have been checked, the rest of its outermost array or object is checked
// with a structural index (index.go); the first array or object member
// value of a message that is the whole text goes to it from its start
// where the text after its bracket is long and dense (256 bytes or more,
// 12 quotation marks or more in the last 128 of them). One pass in
// assembly writes, 64 bytes a block, a mask of the bytes that start a token
// (structural characters, opening quotation marks, the first byte of each
// number or literal, the u of each \u escape) and checks UTF-8, control
// characters and escapes for the whole block at once (with AVX-512 where
// the processor has it and VBMI2, from Ice Lake and Zen 4 on: a block in
// one register); a walk in assembly takes
// the tokens from the masks and checks the grammar. A string that fills a
// whole block is finished by the string checker above. What the index
// does not vouch for is checked again from the value's start without it,
// so that errors and their offsets do not depend on the path.
// The purego build tag, like every other platform, keeps the pure Go path,
// which checks eight bytes a step. All accept and refuse exactly the same
// texts and report the same offset for the same fault, as their tests and
// FuzzScan check.
//
// The package is internal because its shape serves rpcid's own tools
// (httpid, internal/restore under the rpcid proxy, and rpcid check): the
// Message layout and the choice of members are implementation details that
// the module does not promise to keep, while the root package's public
// surface stays the id rule itself.
package scan
