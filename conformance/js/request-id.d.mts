// request-id.d.mts: TypeScript declarations for request-id.mjs. Copy both
// files into an SDK; `import { requestIdKey, sameRequestId } from
// './request-id.mjs'` then type-checks under `tsc --strict` (module
// nodenext), without allowJs.
//
// In the TypeScript SDK (@modelcontextprotocol/sdk, src/shared/protocol.ts),
// Protocol._onresponse reads `const messageId = Number(response.id)` and
// looks the number up in _responseHandlers (and in the maps kept beside it
// under the same number: _progressHandlers, _timeoutInfo). Number() is where
// "" and " " settle request 0 and "0x1" settles request 1. The fix: in
// Protocol.request, store the handler under requestIdKey(messageId); in
// _onresponse, look up requestIdKey(response.id) instead of
// Number(response.id), and treat an undefined key as a response for an
// unknown message ID. The maps become Map<string, ...>, so a number can no
// longer be used as a key by mistake.

/**
 * The key of a request id: a string, equal for two ids exactly when they are
 * the same id under the rule, for use as a Map key; undefined when `id`
 * cannot be a request id (null, a boolean, a bigint, an object, NaN, a
 * string holding a lone surrogate, a number out of the rule's range).
 *
 * Keys: an integer within int64 (a number, or a string in canonical
 * decimal) gives its decimal digits, "-12"; any other number gives "n" and
 * its exact value, "n15e-1" for 1.5; any other string gives a double quote
 * and the string, "\"abc". A key is not a number: never pass it to Number().
 *
 * @param id an id as JSON.parse returns it.
 * @param source for a number, its JSON text (a JSON.parse reviver's
 *   context.source), which then decides the key exactly; a source that is
 *   not a JSON number reading as `id` gives undefined. Ignored for strings.
 */
export declare function requestIdKey(id: unknown, source?: string): string | undefined;

/**
 * Whether two request ids are the same id under the rule: true exactly when
 * both have a key and the keys are identical. An id that cannot be a request
 * id equals nothing, not even itself. Numbers are compared as the doubles
 * JSON.parse made of them; for exact numbers compare
 * requestIdKey(id, source) instead.
 *
 * @param a an id as JSON.parse returns it.
 * @param b an id as JSON.parse returns it.
 */
export declare function sameRequestId(a: unknown, b: unknown): boolean;
