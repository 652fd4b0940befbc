// request-id.mjs: JSON-RPC request id equality by the rpcid rule, for
// JavaScript and TypeScript. One dependency-free file: copy it into an SDK,
// with request-id.d.mts beside it for TypeScript (tsc --strict, module
// nodenext, no allowJs needed).
//
// In the TypeScript SDK (@modelcontextprotocol/sdk, src/shared/protocol.ts),
// the key replaces `Number(response.id)` in Protocol._onresponse: key
// _responseHandlers (and _progressHandlers and _timeoutInfo, kept under the
// same id) by requestIdKey(messageId) in Protocol.request, and look up
// requestIdKey(response.id) in _onresponse; an undefined key is a response
// for an unknown message ID. Number() is what lets "" and " " settle
// request 0 and "0x1" settle request 1.
//
// The rule (https://github.com/rpcid/rpcid, docs/request-id-equality.md):
// numbers are equal by exact value whatever their spelling (1 = 1.0 = 1e0,
// 0 = -0); a string is equal to an integer exactly when it is the integer's
// canonical decimal spelling, in ASCII, within int64 ("7" = 7; "07", "+7",
// " 7", "7.0", "0x7", "" and "７" equal no number); other strings are
// equal when they are identical; a string never equals a fractional number.
//
// These functions take ids as JSON.parse returns them. JSON.parse reads
// every number as the nearest double, so a number whose JSON text is not
// exactly a double reads as a different id: 9007199254740993 as
// 9007199254740992, 1.0000000000000001 as 1, 1e-400 as 0 (a response with
// such an id would settle pending request 9007199254740992, 1 or 0, which
// the rule says it does not answer), 1e400 as Infinity. Strings are exact.
// Give requestIdKey the number's JSON text as well, and every id is exact.
// Where JSON.parse passes a reviver context.source (Node 21, Chrome 114,
// Firefox 135, Safari 18.4 and later), a reviver can keep it; elsewhere
// context is undefined, so is the source, and the key is the double's.
//
// Decode bytes with new TextDecoder('utf-8', { fatal: true }): a decoder
// that replaces invalid UTF-8 with U+FFFD makes an invalid id into the
// valid string id "\ufffd".
//
// In a response loop:
//   const pending = new Map(); // requestIdKey(id) -> resolver
//   pending.set(requestIdKey(request.id), resolve);
//
//   const idSource = new WeakMap(); // message object -> its id's JSON text
//   const response = JSON.parse(text, function (name, value, context) {
//     if (name === 'id' && typeof value === 'number') idSource.set(this, context?.source);
//     return value;
//   });
//   const key = requestIdKey(response.id, idSource.get(response)); // undefined: matches nothing
//   const resolve = key === undefined ? undefined : pending.get(key);
//
// Neither function throws, for any arguments.

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const CANONICAL_INT = /^(?:0|-?[1-9][0-9]*)$/;
const LONE_SURROGATE = /\p{Surrogate}/u;
const JSON_NUMBER = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?)0*([0-9]+))?$/;
// The rule refuses a number d * 10^e in lowest terms with |e| >= 10^18.
const MAX_EXPONENT = 10n ** 18n;

/**
 * The key of a request id: a string, equal for two ids exactly when they are
 * the same id under the rule, for use as a Map key. undefined when id cannot
 * be a request id: null (a request id is never null, and a null response id
 * answers no request), booleans, bigints, objects (a Number or String object
 * too), arrays, NaN and infinities (without a source), numbers out of the
 * rule's range (d * 10^e in lowest terms with |e| >= 10^18), and strings
 * holding a lone surrogate (which are not Unicode text).
 *
 * Keys: an integer within int64 (a number, or a string in canonical
 * decimal) gives its decimal digits, "-12"; any other number gives "n" and
 * its exact value as digits and exponent in lowest terms, "n15e-1" for 1.5,
 * "n1e400"; any other string gives a double quote and the string, "\"abc".
 * The first character tells the three apart.
 *
 * @param {unknown} id an id as JSON.parse returns it
 * @param {string} [source] for a number, its JSON text (a JSON.parse
 *   reviver's context.source), which then decides the key exactly: with
 *   '9007199254740993' or '1e-400', the key is that value's, not the
 *   double's. A source that is not a JSON number reading as id gives
 *   undefined. Ignored for strings.
 * @returns {string | undefined}
 */
export function requestIdKey(id, source) {
  if (typeof id === 'number') {
    if (source !== undefined) return typeof source === 'string' && Number(source) === id ? textKey(source) : undefined;
    if (!Number.isFinite(id)) return undefined;
    if (Number.isInteger(id)) {
      const n = BigInt(id); // exact for every integral double; -0 is 0n
      if (n >= INT64_MIN && n <= INT64_MAX) return n.toString();
    }
    return doubleKey(id);
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

/** The key of a JSON number text, or undefined when it is not one or is out of range. */
function textKey(text) {
  const m = JSON_NUMBER.exec(text);
  if (m === null) return undefined;
  const [, sign, whole, frac = '', expSign = '', expDigits = '0'] = m;
  const digits = whole + frac;
  if (!/[1-9]/.test(digits)) return '0'; // a zero, whatever its exponent
  // A written exponent of 21 digits or more is at least 10^20: the digits
  // of a string that fits in memory cannot bring it back under 10^18.
  if (expDigits.length > 20) return undefined;
  const exp = BigInt(expSign + expDigits) - BigInt(frac.length);
  return numberKey(sign === '-', digits, exp);
}

/** The key of a finite double that is not an int64 integer: its exact value. */
function doubleKey(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  if (biased !== 0) mant |= 1n << 52n;
  const e2 = biased === 0 ? -1074 : biased - 1075; // x = ±mant * 2^e2
  if (e2 >= 0) return numberKey(x < 0, (mant << BigInt(e2)).toString(), 0n);
  return numberKey(x < 0, (mant * 5n ** BigInt(-e2)).toString(), BigInt(e2)); // mant * 5^-e2 * 10^e2
}

/**
 * The key of the nonzero number ±digits * 10^exp (digits ASCII, possibly
 * with leading and trailing zeros): the int64 integer's decimal digits, or
 * "n" and the value in lowest terms; undefined when |exponent| >= 10^18.
 */
function numberKey(negative, digits, exp) {
  let i = 0, j = digits.length;
  while (digits[i] === '0') i++;
  while (digits[j - 1] === '0') j--;
  exp += BigInt(digits.length - j);
  digits = digits.slice(i, j);
  if (exp >= MAX_EXPONENT || exp <= -MAX_EXPONENT) return undefined;
  if (exp >= 0n && BigInt(digits.length) + exp <= 19n) {
    const n = (negative ? -1n : 1n) * BigInt(digits) * 10n ** exp;
    if (n >= INT64_MIN && n <= INT64_MAX) return n.toString();
  }
  return 'n' + (negative ? '-' : '') + digits + (exp === 0n ? '' : 'e' + exp);
}

/**
 * Whether two request ids are the same id under the rule: true exactly when
 * both have a key and the keys are identical. An id that cannot be a request
 * id (see requestIdKey) is equal to nothing, not even to itself. Numbers are
 * compared as the doubles JSON.parse made of them; for exact numbers compare
 * requestIdKey(id, source) instead.
 *
 * @param {unknown} a an id as JSON.parse returns it
 * @param {unknown} b an id as JSON.parse returns it
 * @returns {boolean}
 */
export function sameRequestId(a, b) {
  const ka = requestIdKey(a);
  return ka !== undefined && ka === requestIdKey(b);
}
