// Drives the real Client of @modelcontextprotocol/sdk (the TypeScript MCP
// SDK) over every case of ../testdata/cases.json and records what it did
// with each response: "match" (the response settled the request),
// "no-match" (the Protocol looked it up and found no request),
// "refused" (the transport could not decode it, so it never reached the
// Protocol) or "unsendable" (the Client cannot have a request pending under
// the sent id: it sends only numbers, so a sent id that JSON.parse does not
// read as a safe integer is unsendable; 1.0 and 1e-400 read as 1 and 0 and
// are sent as such).
//
// How one case runs. A real Client is connected to InjectingTransport,
// which answers initialize. For each case the Protocol's next message id
// (_requestMessageId) is set to the sent id and client.ping() goes out. When
// the transport sees the ping it injects two responses:
//   1. the probe: the bytes {"jsonrpc":"2.0","id":<received>,"result":...}
//      decoded as the SDK's transports decode a message (UTF-8 text, then
//      deserializeMessage from shared/stdio.js: JSON.parse and
//      JSONRPCMessageSchema.parse, as StdioClientTransport does per line and
//      StreamableHTTPClientTransport does per JSON body) and handed to
//      onmessage, i.e. Protocol._onresponse: Number(response.id), then a
//      lookup in _responseHandlers;
//   2. the sentinel: a response with the id exactly as the Client sent it.
// ping() resolving with the probe's result is a match; with the sentinel's,
// the probe was refused (decoding threw) or matched nothing.
//
//   node harness.mjs          measure and compare with results.json (exit 1 if different)
//   node harness.mjs --write  measure and rewrite results.json
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { deserializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';

const here = (name) => fileURLToPath(new URL(name, import.meta.url));
export const casesPath = here('../testdata/cases.json');
export const resultsPath = here('results.json');

const HOW =
  'a real `Client` connected to a transport that injects responses: `_requestMessageId` set to the sent id, ' +
  '`client.ping()` sent, the response bytes decoded as its transports do (UTF-8, `deserializeMessage`: ' +
  '`JSON.parse` and `JSONRPCMessageSchema.parse`) and handed to `Protocol._onresponse` ' +
  '(`Number(response.id)`, then a `Map` lookup), then a second response with the id as sent';

function packageVersion(name) {
  return JSON.parse(readFileSync(here(`node_modules/${name}/package.json`), 'utf8')).version;
}

/** A Transport that answers initialize and injects the probe and sentinel responses for each ping. */
class InjectingTransport {
  constructor() {
    /** @type {((m: any) => void) | undefined} */ this.onmessage = undefined;
    /** @type {((e: Error) => void) | undefined} */ this.onerror = undefined;
    /** @type {(() => void) | undefined} */ this.onclose = undefined;
    /** @type {Buffer | undefined} the received id of the current case */ this.received = undefined;
    this.refused = false;
  }
  async start() {}
  async close() { this.onclose?.(); }
  async send(message) {
    if (message.method === 'initialize') {
      queueMicrotask(() => this.onmessage?.({
        jsonrpc: '2.0', id: message.id,
        result: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, serverInfo: { name: 'inject', version: '0' } },
      }));
      return;
    }
    if (message.method !== 'ping') return; // notifications/initialized
    const probe = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":'), this.received, Buffer.from(',"result":{"_meta":{"rpcid":"probe"}}}'),
    ]);
    const sentinel = { jsonrpc: '2.0', id: message.id, result: { _meta: { rpcid: 'sentinel' } } };
    queueMicrotask(() => {
      let decoded;
      try {
        decoded = deserializeMessage(new TextDecoder().decode(probe));
      } catch (err) {
        this.refused = true;
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      }
      if (decoded !== undefined) this.onmessage?.(decoded);
      this.onmessage?.(sentinel);
    });
  }
}

/**
 * Whether the Client can send the raw id: a JSON number that is a safe integer.
 * @param {Buffer} raw
 * @returns {number | undefined}
 */
function sendableId(raw) {
  let v;
  try {
    v = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(raw));
  } catch {
    return undefined;
  }
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
}

/** Runs every case; returns the results object results.json holds. */
export async function measure() {
  const casesText = readFileSync(casesPath);
  const { cases } = JSON.parse(casesText.toString('utf8'));
  const transport = new InjectingTransport();
  const client = new Client({ name: 'rpcid-conformance', version: '0' });
  client.onerror = () => {}; // unknown-id and decoding errors are expected; outcomes record them
  await client.connect(transport);
  const outcomes = [];
  for (const c of cases) {
    const id = sendableId(Buffer.from(c.sent_hex, 'hex'));
    if (id === undefined) {
      outcomes.push('unsendable');
      continue;
    }
    transport.received = Buffer.from(c.received_hex, 'hex');
    transport.refused = false;
    client._requestMessageId = id;
    let result;
    try {
      result = await client.ping({ timeout: 5000 });
    } catch (err) {
      throw new Error(`case ${c.i} (${c.vector}): ping failed: ${err}`);
    }
    const which = result?._meta?.rpcid;
    if (which === 'probe') outcomes.push('match');
    else if (which === 'sentinel') outcomes.push(transport.refused ? 'refused' : 'no-match');
    else throw new Error(`case ${c.i} (${c.vector}): unexpected result ${JSON.stringify(result)}`);
  }
  await client.close();
  return {
    sdk: '@modelcontextprotocol/sdk',
    version: packageVersion('@modelcontextprotocol/sdk'),
    zod: packageVersion('zod'),
    node: process.version,
    how: HOW,
    cases_sha256: createHash('sha256').update(casesText).digest('hex'),
    outcomes,
  };
}

/** results.json's text: a header and one outcome per line. */
export function format(r) {
  const head = Object.entries(r).filter(([k]) => k !== 'outcomes')
    .map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},\n`).join('');
  return `{\n${head}  "outcomes": [\n${r.outcomes.map((o) => `    ${JSON.stringify(o)}`).join(',\n')}\n  ]\n}\n`;
}

/** The differences that matter between two results: everything but the node version. */
export function differences(got, want) {
  const out = [];
  for (const k of ['sdk', 'version', 'zod', 'how', 'cases_sha256']) {
    if (got[k] !== want[k]) out.push(`${k}: measured ${JSON.stringify(got[k])}, results.json has ${JSON.stringify(want[k])}`);
  }
  if (got.outcomes.length !== want.outcomes.length) {
    out.push(`measured ${got.outcomes.length} outcomes, results.json has ${want.outcomes.length}`);
  }
  for (let i = 0; i < Math.min(got.outcomes.length, want.outcomes.length) && out.length < 20; i++) {
    if (got.outcomes[i] !== want.outcomes[i]) out.push(`case ${i}: measured ${got.outcomes[i]}, results.json has ${want.outcomes[i]}`);
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const got = await measure();
  const counts = {};
  for (const o of got.outcomes) counts[o] = (counts[o] ?? 0) + 1;
  const summary = `${got.sdk} ${got.version}: ${got.outcomes.length} cases: ${JSON.stringify(counts)}`;
  if (process.argv.includes('--write')) {
    writeFileSync(resultsPath, format(got));
    console.log(`${summary}; wrote results.json`);
  } else {
    const diffs = differences(got, JSON.parse(readFileSync(resultsPath, 'utf8')));
    if (diffs.length > 0) {
      console.error(`results.json is not what the harness measures (run node harness.mjs --write, then go test -run '^TestResults$' -update . in conformance/):\n${diffs.join('\n')}`);
      process.exit(1);
    }
    console.log(`${summary}; results.json agrees`);
  }
}
