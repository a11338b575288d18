// A client in a process of its own, for the hostile-server tests: it connects
// to the server a plan names, makes one call, and prints one JSON line with
// what happened (the result, or the error's name, message, reason and cause)
// and how its memory moved (RSS and heap before the call, and the highest
// seen while it ran). Plain JavaScript on the built client (dist/src), so it
// runs under plain `node` with whatever --max-old-space-size the test gives.
//
//   node client-probe.mjs '<plan JSON>'
//   plan: { target: { url } | { command, args }, client?: ClientOptions (JSON), http?: HttpClientTransportOptions (JSON),
//           call?: { tool, args } , handlers?: boolean, warmUp?: path, abortAfterMs?: number }
//
// With `warmUp`, a client of its own first calls that path on the server's
// origin twice (a JSON and an SSE reply), so what fetch and the SSE reader
// set up on first use is in the baseline, not in the growth.

import { Client } from '../../dist/src/client/client.js';
import { StdioClientTransport } from '../../dist/src/client/stdio-transport.js';

const plan = JSON.parse(process.argv[2] ?? '{}');
const warnings = [];
const handled = [];
const serverStderr = [];

const handlers = plan.handlers
  ? {
      elicitation: {
        form: (params) => {
          handled.push(`form:${params.message}`);
          return { action: 'cancel' };
        },
      },
      roots: () => {
        handled.push('roots');
        return [{ uri: 'file:///tmp' }];
      },
    }
  : {};

const client = new Client({ name: 'client-probe', version: '1.0.0' }, { era: 'modern', ...handlers, ...plan.client, warn: (message) => warnings.push(message) });

function memory() {
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

function describe(error) {
  if (!(error instanceof Error)) return { name: typeof error, message: String(error) };
  const cause = error.cause instanceof Error ? { name: error.cause.name, message: error.cause.message } : undefined;
  return { name: error.name, message: error.message, reason: error.reason, status: error.status, limit: error.limit, ...(cause ? { cause } : {}) };
}

let report;
try {
  if (plan.target.url) {
    if (plan.warmUp) {
      const warm = new Client({ name: 'probe-warm-up', version: '1.0.0' }, { era: 'modern' });
      await warm.connect(new URL(plan.warmUp, plan.target.url).href);
      await warm.callTool('json');
      await warm.callTool('sse');
      await warm.close();
    }
    await client.connect(plan.target.url, plan.http ?? {});
  } else {
    const transport = new StdioClientTransport({ command: plan.target.command, args: plan.target.args ?? [], stderr: 'pipe' });
    transport.process.stderr.setEncoding('utf8').on('data', (text) => serverStderr.push(text));
    await client.connect(transport);
  }
  // A quiet moment before the baseline: what the runtime does shortly after start-up (compiling the warm-up's code
  // in the background) must not be counted as the call's.
  await new Promise((resolve) => setTimeout(resolve, plan.quietMs ?? 500));
  if (plan.gcBefore) globalThis.gc?.();
  const before = memory();
  const peak = { ...before };
  const sampler = setInterval(() => {
    const now = memory();
    peak.rss = Math.max(peak.rss, now.rss);
    peak.heapUsed = Math.max(peak.heapUsed, now.heapUsed);
  }, 2);
  const controller = new AbortController();
  if (plan.abortAfterMs !== undefined) setTimeout(() => controller.abort(new Error('probe abort')), plan.abortAfterMs);
  const call = plan.call ?? { tool: 't', args: {} };
  let outcome;
  try {
    const result = await client.callTool(call.tool, call.args ?? {}, { signal: controller.signal });
    // Text is cut to its start: a report never carries a large reply back.
    const content = (result.content ?? []).map((block) => (typeof block.text === 'string' ? { ...block, text: block.text.slice(0, 200) } : block));
    outcome = { ok: true, result: { content } };
  } catch (error) {
    outcome = { ok: false, error: describe(error) };
  }
  clearInterval(sampler);
  const after = memory();
  peak.rss = Math.max(peak.rss, after.rss);
  peak.heapUsed = Math.max(peak.heapUsed, after.heapUsed);
  // Late messages (a request pushed after the response) still reach the client before it closes.
  await new Promise((resolve) => setTimeout(resolve, plan.settleMs ?? 50));
  report = { ...outcome, before, peak, warnings, handled };
} catch (error) {
  report = { ok: false, error: describe(error), setupFailed: true, warnings, handled };
} finally {
  await client.close().catch(() => undefined);
}
report.serverStderr = serverStderr.join('');
process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
