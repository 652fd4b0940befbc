// An MCP client built with the TypeScript SDK (@modelcontextprotocol/sdk),
// run by the Go tests in ../node_test.go:
//
//	node client.mjs http URL                  streamable HTTP client
//	node client.mjs sse URL                   HTTP+SSE client (MCP 2024-11-05)
//	node client.mjs stdio COMMAND [ARG ...]   stdio client that spawns COMMAND
//
// It connects, calls the tool "add" twice ({a:2,b:3} and {a:40,b:2}), closes,
// and prints one JSON object on standard output:
//
//	{"sums":[5,42],"responseIds":[1,2,3]}
//
// With RPCID_INTEROP_CANCEL=1 in its environment it also calls the tool
// "wait" between the two and cancels that call after 300 ms ("cancelled":
// true in the output).
//
// sums are the tool's structured results; responseIds are the ids of the
// responses the SDK received, in order, as JSON values, so the test can tell
// whether they arrived as sent (numbers) or changed (strings). Progress goes
// to standard error, as does any failure, with exit status 1.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

function transportFor(args) {
  const [mode, ...rest] = args;
  if (mode === "http" && rest.length === 1) {
    return new StreamableHTTPClientTransport(new URL(rest[0]));
  }
  if (mode === "sse" && rest.length === 1) {
    return new SSEClientTransport(new URL(rest[0]));
  }
  if (mode === "stdio" && rest.length >= 1) {
    // The child gets this process's whole environment (the SDK's default
    // passes only a few variables), and its standard error is ours.
    return new StdioClientTransport({
      command: rest[0],
      args: rest.slice(1),
      env: { ...process.env },
      stderr: "inherit",
    });
  }
  throw new Error("usage: node client.mjs http|sse URL | node client.mjs stdio COMMAND [ARG ...]");
}

// observe records the id of each response message the transport delivers to
// the SDK. Protocol.connect sets transport.onmessage, so the property is
// wrapped on this instance before connecting.
function observe(transport, responseIds) {
  let handler;
  Object.defineProperty(transport, "onmessage", {
    configurable: true,
    get: () => handler,
    set: (f) => {
      handler =
        f &&
        ((message, extra) => {
          for (const m of Array.isArray(message) ? message : [message]) {
            if (m && typeof m === "object" && !("method" in m) && ("result" in m || "error" in m)) {
              responseIds.push(m.id);
            }
          }
          return f(message, extra);
        });
    },
  });
}

const started = Date.now();
const progress = (what) => process.stderr.write(`client.mjs: ${what} after ${Date.now() - started} ms\n`);

async function main() {
  const transport = transportFor(process.argv.slice(2));
  const responseIds = [];
  observe(transport, responseIds);
  const client = new Client({ name: "interop-ts-sdk-client", version: "1.0.0" });
  await client.connect(transport);
  progress("connected");
  const sums = [];
  let cancelled = false;
  for (const args of [
    { a: 2, b: 3 },
    { a: 40, b: 2 },
  ]) {
    if (args.a === 40 && process.env.RPCID_INTEROP_CANCEL === "1") {
      // A call of the server's wait tool, cancelled after 300 ms: the SDK
      // sends notifications/cancelled naming its id.
      const ac = new AbortController();
      setTimeout(() => ac.abort(new Error("cancelled by the test")), 300);
      try {
        await client.callTool({ name: "wait", arguments: {} }, undefined, { signal: ac.signal });
        throw new Error("wait returned without being cancelled");
      } catch (err) {
        if (!ac.signal.aborted) throw err;
      }
      cancelled = true;
      progress("cancelled a call of wait");
    }
    const res = await client.callTool({ name: "add", arguments: args });
    if (res.isError) {
      throw new Error(`add(${args.a}, ${args.b}) reported an error: ${JSON.stringify(res.content)}`);
    }
    sums.push(res.structuredContent?.sum);
    progress(`called add(${args.a}, ${args.b})`);
  }
  await client.close();
  progress("closed");
  process.stdout.write(JSON.stringify({ sums, responseIds, cancelled }) + "\n");
}

main().then(
  () => {
    progress("printed the result");
    process.exit(0);
  },
  (err) => {
    process.stderr.write(`client.mjs: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
