// request-id.mjs: JSON-RPC request id equality by the rpcid rule, for
// JavaScript and TypeScript. One dependency-free file: copy it into an SDK.
//
// The rule (https://github.com/rpcid/rpcid, docs/request-id-equality.md):
// numbers are equal by exact value whatever their spelling (1 = 1.0 = 1e0,
// 0 = -0); a string is equal to an integer exactly when it is the integer's
// canonical decimal spelling, in ASCII, within int64 ("7" = 7; "07", "+7",
// " 7", "7.0", "0x7", "" and "７" equal no number); other strings are
// equal when they are identical; a string never equals a fractional number.
//
// These functions take ids as JSON.parse returns them. JSON.parse has
// already rounded every number to a double, so ids such as 9007199254740993
// (2^53+1, read as 9007199254740992) or 1e400 (read as Infinity) cannot be
// told apart here: an SDK that must accept any JSON number as an id needs a
// lossless JSON decoder. Ids that JSON.parse reads exactly (every integer up
// to 2^53-1, which is all an MCP client sends) are handled exactly.
//
// In a response loop:
//   const pending = new Map(); // requestIdKey(id) -> resolver
//   pending.set(requestIdKey(request.id), resolve);
//   const key = requestIdKey(response.id); // undefined: matches nothing
//   const resolve = key === undefined ? undefined : pending.get(key);
//
// Neither function throws, for any argument.

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const CANONICAL_INT = /^(?:0|-?[1-9][0-9]*)$/;
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * The key of a request id: a string, equal for two ids exactly when they are
 * the same id under the rule, for use as a Map key. undefined when id cannot
 * be a request id: null (a request id is never null, and a null response id
 * answers no request), booleans, objects, arrays, NaN and infinities, and
 * strings holding a lone surrogate (which are not Unicode text).
 *
 * Keys: an integer within int64 (a number, or a string in canonical
 * decimal) gives its decimal digits, "-12"; any other number gives "n" and
 * its shortest JavaScript spelling, "n1.5"; any other string gives a double
 * quote and the string, "\"abc". The first character tells the three apart.
 *
 * @param {unknown} id an id as JSON.parse returns it
 * @returns {string | undefined}
 */
export function requestIdKey(id) {
  if (typeof id === 'number') {
    if (!Number.isFinite(id)) return undefined;
    if (Number.isInteger(id)) {
      const n = BigInt(id); // exact for every integral double; -0 is 0n
      if (n >= INT64_MIN && n <= INT64_MAX) return n.toString();
    }
    return 'n' + String(id); // String gives each double a spelling of its own
  }
  if (typeof id === 'string') {
    if (LONE_SURROGATE.test(id)) return undefined;
    // An int64 has at most 20 characters ("-9223372036854775808").
    if (id.length <= 20 && CANONICAL_INT.test(id)) {
      const n = BigInt(id);
      if (n >= INT64_MIN && n <= INT64_MAX) return id;
    }
    return '"' + id;
  }
  return undefined;
}

/**
 * Whether two request ids are the same id under the rule: true exactly when
 * both have a key and the keys are identical. An id that cannot be a request
 * id (see requestIdKey) is equal to nothing, not even to itself.
 *
 * @param {unknown} a an id as JSON.parse returns it
 * @param {unknown} b an id as JSON.parse returns it
 * @returns {boolean}
 */
export function sameRequestId(a, b) {
  const ka = requestIdKey(a);
  return ka !== undefined && ka === requestIdKey(b);
}
