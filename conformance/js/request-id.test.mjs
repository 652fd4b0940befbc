// node --test request-id.test.mjs: runs request-id.mjs over every case of
// testdata/vectors.json (at the repository root), decoded with the
// standard decoders a JavaScript SDK has: TextDecoder (fatal on invalid
// UTF-8; a byte order mark is kept, so JSON.parse refuses it, as it must)
// and JSON.parse.
//
// Vectors JSON.parse cannot represent exactly (a number whose exact value
// is not the double it reads) are counted and listed as "not representable:
// use a lossless decoder", never passed. Vectors whose id is null are
// listed too: request-id.mjs deliberately treats null as no request id.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { requestIdKey, sameRequestId } from './request-id.mjs';

const file = JSON.parse(readFileSync(new URL('../../testdata/vectors.json', import.meta.url), 'utf8'));

/** The bytes of a vector's raw id: the UTF-8 of the text form, or the hex form. */
function rawBytes(text, hex) {
  return text !== undefined ? Buffer.from(text, 'utf8') : Buffer.from(hex, 'hex');
}

/**
 * Decodes raw id bytes as an SDK would: strict UTF-8, then JSON.parse.
 * @returns {{ok: true, value: unknown} | {ok: false, why: string}}
 */
function decode(bytes) {
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return { ok: false, why: 'invalid UTF-8' };
  }
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, why: 'not JSON' };
  }
}

/** Whether the double v is exactly the value of the JSON number text. */
export function exactlyRepresents(text, v) {
  const m = /^[ \t\n\r]*(-?)([0-9]+)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?[ \t\n\r]*$/.exec(text);
  if (m === null) return false;
  const frac = m[3] ?? '';
  let digits = (m[2] + frac).replace(/^0+/, '');
  let exp = BigInt(m[4] ?? '0') - BigInt(frac.length);
  if (digits === '') return v === 0; // a zero, in any spelling
  if (v === 0 || !Number.isFinite(v)) return false;
  if ((m[1] === '-') !== (v < 0)) return false;
  while (digits.endsWith('0')) { digits = digits.slice(0, -1); exp += 1n; }
  // Every finite double is m * 2^e with |e| <= 1074, so a nonzero exact
  // value D * 10^E with E out of these bounds is not one.
  if (exp > 310n || exp < -1100n) return false;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, Math.abs(v));
  const bits = view.getBigUint64(0);
  const biased = Number((bits >> 52n) & 0x7ffn);
  let mant = bits & ((1n << 52n) - 1n);
  let e2 = biased === 0 ? -1074 : biased - 1075;
  if (biased !== 0) mant |= 1n << 52n;
  // Compare D * 10^E with mant * 2^e2 as integers.
  let lhs = BigInt(digits), rhs = mant;
  if (exp >= 0n) lhs *= 10n ** exp; else rhs *= 10n ** -exp;
  if (e2 >= 0) rhs <<= BigInt(e2); else lhs <<= BigInt(-e2);
  return lhs === rhs;
}

/** Whether a decoded id reads its raw text exactly (non-numbers always do). */
function representable(bytes, d) {
  return !d.ok || typeof d.value !== 'number' || exactlyRepresents(bytes.toString('latin1'), d.value);
}

test('request-id.mjs agrees with every vector it can represent', () => {
  const unrepresentable = [];
  const nullByDesign = [];
  let checked = 0;
  const failures = [];

  for (const v of file.decode) {
    const bytes = rawBytes(v.raw, v.raw_hex);
    const d = decode(bytes);
    const name = `decode/${v.name}`;
    if (!representable(bytes, d)) { unrepresentable.push(name); continue; }
    if (d.ok && d.value === null) { nullByDesign.push(name); continue; }
    checked++;
    const key = d.ok ? requestIdKey(d.value) : undefined;
    if (!v.valid) {
      if (key !== undefined) failures.push(`${name}: invalid (${v.error}) but decoded to key ${JSON.stringify(key)}`);
      continue;
    }
    if (key === undefined) { failures.push(`${name}: valid ${v.kind} but has no key (${d.ok ? 'key undefined' : d.why})`); continue; }
    // The canonical text and the vector's key spelling are the same id.
    for (const [label, text] of [['canonical', v.canonical], ['key', v.key]]) {
      const other = decode(Buffer.from(text, 'utf8'));
      if (!representable(Buffer.from(text, 'utf8'), other)) continue;
      const otherKey = other.ok ? requestIdKey(other.value) : undefined;
      if (otherKey !== key) failures.push(`${name}: key ${JSON.stringify(key)} but its ${label} spelling ${text} has key ${JSON.stringify(otherKey)}`);
    }
  }

  for (const p of file.pairs) {
    const name = `pair/${p.name}`;
    const ab = rawBytes(p.a, p.a_hex), bb = rawBytes(p.b, p.b_hex);
    const a = decode(ab), b = decode(bb);
    if (!representable(ab, a) || !representable(bb, b)) { unrepresentable.push(name); continue; }
    if ((a.ok && a.value === null) || (b.ok && b.value === null)) {
      if (p.equal) { nullByDesign.push(name); continue; } // null = null, but null is no request id
    }
    checked++;
    const got = a.ok && b.ok && sameRequestId(a.value, b.value);
    const back = a.ok && b.ok && sameRequestId(b.value, a.value);
    if (got !== p.equal || back !== p.equal) failures.push(`${name}: sameRequestId = ${got} (reversed ${back}), want ${p.equal}: ${p.reason}`);
  }

  console.log(`request-id.mjs: ${checked} vectors checked, ${failures.length} failed`);
  console.log(`not representable: use a lossless decoder (${unrepresentable.length}): ${unrepresentable.join(', ')}`);
  console.log(`null, which request-id.mjs treats as no request id by design (${nullByDesign.length}): ${nullByDesign.join(', ')}`);
  assert.deepEqual(failures, []);
  assert.equal(checked + unrepresentable.length + nullByDesign.length, file.decode.length + file.pairs.length, 'every vector is checked or listed');
  // JSON.parse rounds 2^53+1 to 2^53; the runner must notice.
  assert.ok(unrepresentable.includes('pair/int-2p53-plus-1-vs-2p53'), 'a vector JSON.parse rounds is listed as not representable');
});

test('requestIdKey and sameRequestId on values no JSON text gives', () => {
  for (const x of [null, undefined, true, false, NaN, Infinity, -Infinity, {}, [], [1], 1n, Symbol('s'), () => 1, '\ud800', 'a\udc00b']) {
    assert.equal(requestIdKey(x), undefined, String(typeof x === 'symbol' ? 'symbol' : x));
    assert.equal(sameRequestId(x, x), false);
  }
  assert.equal(sameRequestId(0, -0), true);
  assert.equal(sameRequestId('0', -0), true);
  assert.equal(sameRequestId(2 ** 60, '1152921504606846976'), true);
  assert.equal(sameRequestId(2 ** 63, '9223372036854775808'), false); // 2^63 is outside int64: a number, never equal to a string
  assert.equal(sameRequestId('9223372036854775807', '9223372036854775807'), true);
  assert.equal(sameRequestId(1.5, 'n1.5'), false);
  assert.equal(sameRequestId('"a', '"a'), true);
  assert.equal(sameRequestId('"a', '\"a'), true);
  assert.notEqual(requestIdKey('n1.5'), requestIdKey(1.5));
  assert.notEqual(requestIdKey('"1'), requestIdKey('1'));
  assert.equal(sameRequestId('😀', '\ud83d\ude00'), true); // a surrogate pair is not lone
  assert.equal(requestIdKey('1'.repeat(100000)), '"' + '1'.repeat(100000)); // beyond int64: a string id
  assert.equal(sameRequestId('9'.repeat(30), 1e30), false);
});
