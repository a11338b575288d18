/**
 * The cost of a form question whose schema is written inline in the handler,
 * in a process of its own (run with --expose-gc) so each style starts from the
 * same clean heap: N two-round flows through the real server pipeline
 * (`tessera-mcp/testing`), then the time per flow and the heap kept per flow
 * after full collections.
 *
 *   node --expose-gc dist/bench/workloads/schema-asks-child.js --style raw|zod|raw-once|zod-once [--flows N] [--warmup N]
 *
 * raw: `{ type: 'object', properties: { n: { type: 'string', minLength: 1 } }, required: ['n'] }`, a new object every round
 * zod: `z.object({ n: z.string().min(1) })`, a new schema every round
 * raw-once, zod-once: the same schema made once at module scope (the reference: what the schema adds is the difference)
 * Prints one JSON line: { style, flows, msPerFlow, heapBytesPerFlow }.
 */

import { parseArgs } from 'node:util';
import { z } from 'zod';
import { ask, McpServer, type McpServerOptions } from 'tessera-mcp';
import { accept, testServer } from 'tessera-mcp/testing';

export type SchemaStyle = 'raw' | 'zod' | 'raw-once' | 'zod-once';
const STYLES: readonly SchemaStyle[] = ['raw', 'zod', 'raw-once', 'zod-once'];

export interface SchemaAskResult {
  style: SchemaStyle;
  flows: number;
  msPerFlow: number;
  heapBytesPerFlow: number;
}

const { values } = parseArgs({ options: { style: { type: 'string' }, flows: { type: 'string', default: '2000' }, warmup: { type: 'string', default: '200' } } });
const style = values.style as SchemaStyle;
if (!STYLES.includes(style)) throw new Error(`--style must be one of ${STYLES.join(', ')}, not ${String(values.style)}`);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const RAW_ONCE = { type: 'object', properties: { n: { type: 'string', minLength: 1 } }, required: ['n'] };
const ZOD_ONCE = z.object({ n: z.string().min(1) });

/** The tool as a user writes it: the question's schema an object literal (or a zod call) inside the handler. */
function server(options: McpServerOptions): McpServer {
  const mcp = new McpServer({ name: 'schema-asks', version: '1.0.0' }, options);
  mcp.tool('greet', {}, async (_args, ctx) => {
    let answer;
    if (style === 'raw') answer = await ctx.ask(ask.form('Your name?', { type: 'object', properties: { n: { type: 'string', minLength: 1 } }, required: ['n'] }, { key: 'name' }));
    else if (style === 'zod') answer = await ctx.ask(ask.form('Your name?', z.object({ n: z.string().min(1) }), { key: 'name' }));
    else if (style === 'raw-once') answer = await ctx.ask(ask.form('Your name?', RAW_ONCE, { key: 'name' }));
    else answer = await ctx.ask(ask.form('Your name?', ZOD_ONCE, { key: 'name' }));
    return answer.action === 'accept' ? `Hello ${String(answer.content.n)}` : 'no name';
  });
  return mcp;
}

const kit = testServer(server);
const script = { name: accept({ n: 'Ada' }) };

async function flows(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const run = await kit.callTool('greet', {}, script);
    if (run.rounds !== 2 || run.text !== 'Hello Ada') throw new Error(`flow ${i}: ${run.rounds} rounds, ${JSON.stringify(run.text)}`);
  }
}

/** Heap in use after full collections, with pending jobs (finalizers, immediates) let run in between. */
async function settledHeap(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

const count = Number(values.flows);
await flows(Number(values.warmup));
const before = await settledHeap();
const started = performance.now();
await flows(count);
const elapsed = performance.now() - started;
const after = await settledHeap();
const result: SchemaAskResult = { style, flows: count, msPerFlow: elapsed / count, heapBytesPerFlow: (after - before) / count };
process.stdout.write(`${JSON.stringify(result)}\n`);
