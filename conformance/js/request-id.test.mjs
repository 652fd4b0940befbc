// node --test request-id.test.mjs: runs request-id.mjs over every case of
// rpcidtest/vectors.json (the one copy, which package rpcidtest embeds), decoded with the
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

const file = JSON.parse(readFileSync(new URL('../../rpcidtest/vectors.json', import.meta.url), 'utf8'));

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

/**
 * The key request-id.mjs must give an id, from the vector's key spelling:
 * an int64 integer as its digits, another number as "n" and the spelling,
 * a string as a double quote and its value.
 */
function keyFromVector(key) {
  if (key.startsWith('"')) return '"' + JSON.parse(key);
  if (/^-?[0-9]+$/.test(key) && BigInt(key) >= -(2n ** 63n) && BigInt(key) < 2n ** 63n) return key;
  return 'n' + key;
}

/** The JSON text of a raw id without its surrounding whitespace, as a reviver's context.source has it. */
function sourceOf(bytes) {
  return bytes.toString('utf8').replace(/^[ \t\n\r]+|[ \t\n\r]+$/g, '');
}

/** The key of a decoded id, given its source text when withSource is set. */
function keyOf(bytes, d, withSource) {
  if (!d.ok) return undefined;
  return withSource && typeof d.value === 'number' ? requestIdKey(d.value, sourceOf(bytes)) : requestIdKey(d.value);
}

/** Whether a decoded id reads its raw text exactly (non-numbers always do). */
function representable(bytes, d) {
  return !d.ok || typeof d.value !== 'number' || exactlyRepresents(bytes.toString('latin1'), d.value);
}

/**
 * Runs every vector; withSource passes each number's JSON text as
 * requestIdKey's second argument, as a JSON.parse reviver's context.source
 * gives it, which makes every vector representable.
 */
function runVectors(withSource) {
  const unrepresentable = [];
  const nullByDesign = [];
  let checked = 0;
  const failures = [];

  for (const v of file.decode) {
    const bytes = rawBytes(v.raw, v.raw_hex);
    const d = decode(bytes);
    const name = `decode/${v.name}`;
    if (!withSource && !representable(bytes, d)) { unrepresentable.push(name); continue; }
    if (d.ok && d.value === null) { nullByDesign.push(name); continue; }
    checked++;
    const key = keyOf(bytes, d, withSource);
    if (!v.valid) {
      if (key !== undefined) failures.push(`${name}: invalid (${v.error}) but decoded to key ${JSON.stringify(key)}`);
      continue;
    }
    if (key === undefined) { failures.push(`${name}: valid ${v.kind} but has no key (${d.ok ? 'key undefined' : d.why})`); continue; }
    if (key !== keyFromVector(v.key)) failures.push(`${name}: key ${JSON.stringify(key)}, want ${JSON.stringify(keyFromVector(v.key))} (vector key ${v.key})`);
    // The canonical text and the vector's key spelling are the same id.
    for (const [label, text] of [['canonical', v.canonical], ['key', v.key]]) {
      const other = decode(Buffer.from(text, 'utf8'));
      if (!withSource && !representable(Buffer.from(text, 'utf8'), other)) continue;
      const otherKey = keyOf(Buffer.from(text, 'utf8'), other, withSource);
      if (otherKey !== key) failures.push(`${name}: key ${JSON.stringify(key)} but its ${label} spelling ${text} has key ${JSON.stringify(otherKey)}`);
    }
  }

  for (const p of file.pairs) {
    const name = `pair/${p.name}`;
    const ab = rawBytes(p.a, p.a_hex), bb = rawBytes(p.b, p.b_hex);
    const a = decode(ab), b = decode(bb);
    if (!withSource && (!representable(ab, a) || !representable(bb, b))) { unrepresentable.push(name); continue; }
    if ((a.ok && a.value === null) || (b.ok && b.value === null)) {
      if (p.equal) { nullByDesign.push(name); continue; } // null = null, but null is no request id
    }
    checked++;
    const ka = keyOf(ab, a, withSource), kb = keyOf(bb, b, withSource);
    const got = ka !== undefined && ka === kb;
    const back = kb !== undefined && kb === ka;
    if (!withSource && a.ok && b.ok && sameRequestId(a.value, b.value) !== got) failures.push(`${name}: sameRequestId disagrees with requestIdKey`);
    if (got !== p.equal || back !== p.equal) failures.push(`${name}: sameRequestId = ${got} (reversed ${back}), want ${p.equal}: ${p.reason}`);
  }

  const how = withSource ? 'with each number\'s source text' : 'on JSON.parse values alone';
  console.log(`request-id.mjs ${how}: ${checked} vectors checked, ${failures.length} failed`);
  console.log(`not representable: use a lossless decoder (${unrepresentable.length}): ${unrepresentable.join(', ') || 'none'}`);
  console.log(`null, which request-id.mjs treats as no request id by design (${nullByDesign.length}): ${nullByDesign.join(', ')}`);
  assert.deepEqual(failures, []);
  assert.equal(checked + unrepresentable.length + nullByDesign.length, file.decode.length + file.pairs.length, 'every vector is checked or listed');
  return unrepresentable;
}

test('request-id.mjs agrees with every vector it can represent', () => {
  const unrepresentable = runVectors(false);
  // JSON.parse rounds 2^53+1 to 2^53; the runner must notice.
  assert.ok(unrepresentable.includes('pair/int-2p53-plus-1-vs-2p53'), 'a vector JSON.parse rounds is listed as not representable');
});

test('request-id.mjs given each number\'s source text agrees with every vector', () => {
  assert.deepEqual(runVectors(true), []);
});

test('the source text keeps apart the ids JSON.parse rounds together', () => {
  // Without the source, each of these reads as a pending integer id and
  // would settle it: the limit of any matcher over JSON.parse values.
  for (const [text, rounded] of [['1e-400', '0'], ['-1e-400', '0'], ['1.0000000000000001', '1'], ['9007199254740993', '9007199254740992'],
    ['9223372036854775807', 'n9223372036854775808'], ['0.30000000000000001', requestIdKey(0.3)]]) {
    assert.equal(requestIdKey(JSON.parse(text)), rounded, text);
    assert.notEqual(requestIdKey(JSON.parse(text), text), rounded, text);
  }
  assert.equal(requestIdKey(JSON.parse('9007199254740993'), '9007199254740993'), '9007199254740993');
  assert.equal(requestIdKey(JSON.parse('9223372036854775807'), '9223372036854775807'), '9223372036854775807');
  assert.equal(requestIdKey(JSON.parse('1e-400'), '1e-400'), 'n1e-400');
  assert.equal(requestIdKey(JSON.parse('1e400'), '1e400'), 'n1e400'); // Infinity, with its source, is the number 1e400
  assert.equal(requestIdKey(JSON.parse('1.50'), '1.50'), 'n15e-1');
  assert.equal(requestIdKey(JSON.parse('-0.0e5'), '-0.0e5'), '0');
  assert.equal(requestIdKey(0, '0e99999999999999999999'), '0'); // a zero, whatever its exponent
  // Out of the rule's exponent range: not an id, in every spelling.
  for (const text of ['1e-1000000000000000000', '10e999999999999999999', '0.001e-999999999999999998', '1e' + '9'.repeat(100)]) {
    assert.equal(requestIdKey(JSON.parse(text), text), undefined, text);
  }
  // A source that is not the number's JSON text is refused, not trusted.
  for (const [v, text] of [[1, '2'], [1, ' 1'], [1, '01'], [1, '+1'], [1, '"1"'], [1, 1], [1, ['1']], [1, { valueOf() { throw new Error('valueOf'); } }], [1, Symbol('1')], [Infinity, '1'], [0, '']]) {
    assert.equal(requestIdKey(v, text), undefined, `${v} with source ${typeof text === 'symbol' ? 'a symbol' : JSON.stringify(text)}`);
  }
  // A long mantissa is read in linear time, not through BigInt.
  const long = '1.' + '0'.repeat(200000) + '1';
  assert.equal(requestIdKey(Number(long), long), 'n1' + '0'.repeat(200000) + '1e-200001');
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
  assert.equal(sameRequestId(1.5, 'n15e-1'), false);
  // Without a source, a number's key is the exact value of its double.
  assert.equal(requestIdKey(2 ** 64), 'n18446744073709551616');
  assert.equal(requestIdKey(0.1), 'n1000000000000000055511151231257827021181583404541015625e-55');
  assert.equal(requestIdKey(-(2 ** 63)), '-9223372036854775808');
  assert.equal(requestIdKey(5e-324), 'n' + (5n ** 1074n).toString() + 'e-1074');
  assert.equal(sameRequestId('"a', '"a'), true);
  assert.equal(sameRequestId('"a', '\"a'), true);
  assert.notEqual(requestIdKey('n1.5'), requestIdKey(1.5));
  assert.notEqual(requestIdKey('"1'), requestIdKey('1'));
  assert.equal(sameRequestId('😀', '\ud83d\ude00'), true); // a surrogate pair is not lone
  assert.equal(requestIdKey('1'.repeat(100000)), '"' + '1'.repeat(100000)); // beyond int64: a string id
  assert.equal(sameRequestId('9'.repeat(30), 1e30), false);
});

test('request-id.mjs on the conformance checks (../testdata/cases.json)', () => {
  // The (sent, received) checks the SDK matrix runs. As an SDK would use
  // it: a request pending under the sent id's key, the response looked up
  // under the received id's key.
  const { cases } = JSON.parse(readFileSync(new URL('../testdata/cases.json', import.meta.url), 'utf8'));
  for (const withSource of [false, true]) {
    const tally = { checks: 0, common: 0, unsendable: 0, agreed: 0, wrong: 0, missed: 0, commonWrong: 0 };
    const lossy = [];
    for (const c of cases) {
      const sb = Buffer.from(c.sent_hex, 'hex'), rb = Buffer.from(c.received_hex, 'hex');
      const sent = keyOf(sb, decode(sb), withSource);
      if (sent === undefined) { tally.unsendable++; continue; }
      tally.checks++;
      const common = /^(?:0|[1-9][0-9]*)$/.test(sb.toString('latin1')) && BigInt(sb.toString('latin1')) < 2n ** 53n;
      if (common) tally.common++;
      const r = decode(rb);
      const got = keyOf(rb, r, withSource) === sent;
      if (got === c.want) { tally.agreed++; continue; }
      tally[got ? 'wrong' : 'missed']++;
      if (got && common) tally.commonWrong++;
      // Every disagreement is an id JSON.parse reads as another number.
      if (!(!representable(sb, decode(sb)) || !representable(rb, r))) assert.fail(`case ${c.i} ${c.vector}: disagrees, yet JSON.parse reads both ids exactly`);
      lossy.push(`${c.vector}: sent ${sb} received ${rb}`);
    }
    console.log(`request-id.mjs ${withSource ? 'with sources' : 'on JSON.parse values'} on ${cases.length} conformance checks: ${JSON.stringify(tally)}`);
    if (withSource) {
      assert.deepEqual(lossy, [], 'with sources, every check agrees with the rule');
    } else {
      console.log(`disagreements, all from ids JSON.parse rounds: ${lossy.join('; ')}`);
      assert.ok(tally.commonWrong > 0, 'a rounded received id (1e-400) settles common request 0; the runner must notice');
    }
  }
});

test('the response loop of request-id.mjs\'s header, with a real JSON.parse reviver', () => {
  const hasSource = JSON.parse('1', (name, value, context) => context?.source) === '1';
  const text = '{"jsonrpc":"2.0","id":1e-400,"result":{"content":[{"id":0}]}}';
  const idSource = new WeakMap();
  const response = JSON.parse(text, function (name, value, context) {
    if (name === 'id' && typeof value === 'number') idSource.set(this, context?.source);
    return value;
  });
  const key = requestIdKey(response.id, idSource.get(response));
  if (hasSource) {
    assert.equal(key, 'n1e-400'); // the id's own text, not the nested id's
  } else {
    console.log(`JSON.parse gives this node (${process.version}) no context.source: the key is the double's`);
    assert.equal(key, '0');
  }
});
