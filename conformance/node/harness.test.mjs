// node --test (or npm test) in conformance/node: the real TypeScript SDK
// Client, run over every case, does exactly what results.json records.
// This asserts that the harness ran every case and that the committed
// results are current, not that the SDK is right.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { measure, differences, casesPath, resultsPath } from './harness.mjs';

test('the harness ran every case and results.json is current', async () => {
  const { cases } = JSON.parse(readFileSync(casesPath, 'utf8'));
  const got = await measure();
  assert.equal(got.outcomes.length, cases.length, 'one outcome per case');
  for (const o of got.outcomes) assert.ok(['match', 'no-match', 'refused', 'unsendable'].includes(o), o);
  // Every client can send an integer id 0..2^53-1; none of those may be skipped.
  const common = cases.filter((c) => {
    const s = Buffer.from(c.sent_hex, 'hex').toString('latin1');
    return /^(0|[1-9][0-9]*)$/.test(s) && BigInt(s) <= 2n ** 53n - 1n;
  });
  assert.ok(common.length > 0);
  for (const c of common) assert.notEqual(got.outcomes[c.i], 'unsendable', `case ${c.i} (${c.vector})`);
  const want = JSON.parse(readFileSync(resultsPath, 'utf8'));
  assert.deepEqual(differences(got, want), [],
    "results.json is stale: run node harness.mjs --write, then go test -run '^TestResults$' -update . in conformance/");
});
