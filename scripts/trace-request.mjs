// What one asking tools/call runs through on the built server (issue 28): V8 precise coverage over one
// warmed request (round 1, then its retry), counted over dist/src/ only.
//
//   npm run build && node scripts/trace-request.mjs [--warmup N] [--json] [--functions]
//
// A server with one tool that asks one form question, served by serveHttp on 127.0.0.1 (the node:http
// adapter, as a user serves it), called with fetch from this process (fetch's own code is not under
// dist/src, so it is not counted). Per round it prints the files and the functions entered (a function
// counts once however often it ran), the calls in all, how often the tool was looked up by its name
// (Map get/has with the tool's name as key, on the maps the tool was put in when registered) and how often a request header
// was read (calls of transport/http/node-request.js's readHeader, the one place node:http headers are read).

import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { warmup: { type: 'string', default: '200' }, json: { type: 'boolean', default: false }, functions: { type: 'boolean', default: false } } });
const { McpServer, ask, generateStateKey } = await import('../dist/src/index.js');
const { serveHttp } = await import('../dist/src/node.js');

// Lookups of the tool by its name in the registry that holds it: the maps the tool was put in when it was
// registered (not the caches that meet its name later, such as the sealer's field cache).
const TOOL = 'confirm';
const registries = new WeakSet();
let registering = true;
let lookups = 0;
let counting = false;
const originalSet = Map.prototype.set;
Map.prototype.set = function (key, value) {
  if (registering && key === TOOL) registries.add(this);
  return originalSet.call(this, key, value);
};
for (const name of ['get', 'has']) {
  const original = Map.prototype[name];
  Map.prototype[name] = function (key) {
    if (counting && key === TOOL && registries.has(this)) lookups++;
    return original.call(this, key);
  };
}

const server = new McpServer({ name: 'trace', version: '1.0.0' }, { state: { keys: generateStateKey() } });
const approval = { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] };
server.tool(TOOL, { description: 'Asks once', input: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] } }, async ({ item }, ctx) => {
  const answer = await ctx.ask(ask.form(`Approve ${item}?`, approval, { key: 'approval' }));
  return answer.action === 'accept' && answer.content.approve ? `approved ${item}` : `declined ${item}`;
});
registering = false;
const running = await serveHttp(server, { port: 0 });

const envelope = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'trace', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};
const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': TOOL };
let id = 0;
async function call(extra) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { _meta: envelope, name: TOOL, arguments: { item: 'book' }, ...extra } });
  const response = await fetch(running.url, { method: 'POST', headers, body });
  const reply = await response.json();
  if (response.status !== 200 || reply.error) throw new Error(`unexpected reply ${response.status} ${JSON.stringify(reply)}`);
  return reply.result;
}
async function round1() {
  const result = await call({});
  if (result.resultType !== 'input_required') throw new Error(`round 1 did not ask: ${JSON.stringify(result)}`);
  return result;
}
async function retry(asked) {
  const result = await call({ inputResponses: { approval: { action: 'accept', content: { approve: true } } }, requestState: asked.requestState });
  if (result.content?.[0]?.text !== 'approved book') throw new Error(`the retry did not complete: ${JSON.stringify(result)}`);
  return result;
}
// The server's work after the reply (ctx.finish, the observer) is done by the next turns of the loop.
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

const session = new Session();
session.connect();
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });

for (let i = 0; i < Number(values.warmup); i++) await retry(await round1());

const inSrc = (url) => url.includes('/dist/src/');
async function measured(step) {
  await settle();
  await session.post('Profiler.takePreciseCoverage'); // resets the counts
  lookups = 0;
  counting = true;
  const value = await step();
  await settle();
  counting = false;
  const { result } = await session.post('Profiler.takePreciseCoverage');
  const files = new Set();
  const functions = [];
  let calls = 0;
  let headerReads = 0;
  for (const script of result) {
    if (!inSrc(script.url)) continue;
    const file = script.url.slice(script.url.indexOf('/dist/src/') + '/dist/src/'.length);
    for (const fn of script.functions) {
      const count = fn.ranges[0].count;
      // The script's top level is not a function the request entered.
      if (count === 0 || (fn.functionName === '' && fn.ranges[0].startOffset === 0)) continue;
      files.add(file);
      functions.push(`${file} ${fn.functionName || '(anonymous)'}@${fn.ranges[0].startOffset} ×${count}`);
      calls += count;
      if (file === 'transport/http/node-request.js' && fn.functionName === 'readHeader') headerReads += count;
    }
  }
  return { value, numbers: { files: files.size, functions: functions.length, calls, toolLookups: lookups, headerReads }, functions: functions.sort() };
}

const first = await measured(round1);
const second = await measured(() => retry(first.value));
await session.post('Profiler.stopPreciseCoverage');
session.disconnect();
await running.close();
server.close();

const report = { node: process.version, warmup: Number(values.warmup), round1: first.numbers, retry: second.numbers };
if (values.functions) Object.assign(report, { round1Functions: first.functions, retryFunctions: second.functions });
if (values.json) console.log(JSON.stringify(report, null, 2));
else {
  console.log(`node ${process.version}, ${values.warmup} warm-up flows, V8 precise coverage over dist/src/`);
  console.log('| | files | functions | calls | tool looked up | headers read |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  for (const [label, n] of [['round 1', first.numbers], ['retry', second.numbers]]) console.log(`| ${label} | ${n.files} | ${n.functions} | ${n.calls} | ${n.toolLookups} | ${n.headerReads} |`);
  if (values.functions) for (const [label, m] of [['round 1', first], ['retry', second]]) console.log(`\n${label}:\n${m.functions.join('\n')}`);
}
