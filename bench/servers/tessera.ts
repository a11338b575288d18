/**
 * The Tessera benchmark server: the shared tool catalogue on Tessera's public
 * API, with defaults a user would have (sealed state with a configured key,
 * serveHttp's Host/Origin check on loopback, JSON replies).
 *
 *   node dist/bench/servers/tessera.js            HTTP on 127.0.0.1 (prints "listening <url>" on stderr)
 *   node dist/bench/servers/tessera.js --stdio    stdio
 *   --auth            a protected resource: every request needs a JWT access token from
 *                     $BENCH_AUTH_ISSUER with scope mcp:read (protectedResource, defaults)
 *   --auth-no-cache   the same, verifying the token's signature on every request (cacheMs: 0)
 *   --telemetry       with the OpenTelemetry SDK installed: every request traced, in-memory exporters (telemetry-sdk.ts)
 *   --payloads        also the large-payload workloads' 1 MiB resource and 64 KiB-argument tool (tools/payloads.ts)
 *                     and the tasks phase's task tool (tools/tasks.ts)
 *   --many            950 more fillers: 1,000 tools for the paged tools/list
 *   --keep-alive-ms N idle kept-alive connections stay open N ms (serveHttp's timeouts.keepAliveMs; default 65 s)
 *   --redis           every store on Redis (redisStores) at $BENCH_REDIS_URL, as several instances would share them
 *   --sessions        2025-11-25 session caps lifted (maxSessions, maxSessionsPerPrincipal 1,000,000): the
 *                     session and GET-stream cells of the scale phase make thousands as one anonymous caller
 */

import { parseArgs } from 'node:util';
import { ask, generateStateKey, jwtAccessTokens, McpServer, protectedResource, toolError } from 'tessera-mcp';
import { serveHttp } from 'tessera-mcp/node';
import { redisStores } from 'tessera-mcp/redis';
import { serveStdio } from 'tessera-mcp/stdio';
import { REDIS_ENV } from '../config.js';
import { BENCH_SCOPE, ISSUER_ENV } from '../harness/token-issuer.js';
import {
  CONFIRM_KEY,
  CONFIRM_TOOL,
  confirmedText,
  confirmMessage,
  declinedText,
  ECHO_TOOL,
  FILLER_TOOLS,
  makeReservations,
  SERVER_VERSION,
  WIZARD_COLOR_KEY,
  WIZARD_COLOR_MESSAGE,
  WIZARD_NAME_KEY,
  WIZARD_NAME_MESSAGE,
  WIZARD_TOOL,
  wizardText,
} from '../tools/catalog.js';
import { BIG_RESOURCE_NAME, BIG_RESOURCE_TEXT, BIG_RESOURCE_URI, EXTRA_FILLER_TOOLS, LENGTH_TOOL } from '../tools/payloads.js';
import { ApproveAnswer, ColorAnswer, ConfirmInput, EchoInput, FillerInput, LengthInput, NameAnswer, TaskInput, WizardInput } from '../tools/schemas.js';
import { TASK_TOOL, taskDoneText } from '../tools/tasks.js';
import { announceListening, KEEP_ALIVE_OPTION } from './diagnostics.js';

const reservations = makeReservations();

const { values } = parseArgs({
  options: {
    stdio: { type: 'boolean', default: false },
    auth: { type: 'boolean', default: false },
    'auth-no-cache': { type: 'boolean', default: false },
    telemetry: { type: 'boolean', default: false },
    payloads: { type: 'boolean', default: false },
    many: { type: 'boolean', default: false },
    ...KEEP_ALIVE_OPTION,
    sessions: { type: 'boolean', default: false },
    redis: { type: 'boolean', default: false },
  },
});

// Tasks are kept 10 s, not the default hour, and without the default caps of 10,000 (1,000 per caller):
// the tasks cell creates thousands a second from one anonymous caller, and a store that fills up measures refusals.
const tasks = values.payloads ? { tasks: { ttlMs: 10_000, maxTasks: 1_000_000, maxTasksPerPrincipal: 1_000_000 } } : {};

// The 2025-11-25 era is on by default (the same endpoint); --sessions only lifts its caps (default 1,000 sessions, 100 per caller).
const legacy = values.sessions ? { legacy: { maxSessions: 1_000_000, maxSessionsPerPrincipal: 1_000_000 } } : {};

// --redis: the shared stores several instances would use (sessions, their bus, tasks, redemptions, subscriptions).
const redisUrl = process.env[REDIS_ENV];
if (values.redis && !redisUrl) throw new Error(`--redis needs ${REDIS_ENV}`);
const stores = values.redis ? { stores: redisStores({ url: redisUrl! }) } : {};

// A configured key, so the server does not warn about a per-process one (what a deployment does).
const server = new McpServer({ name: 'tessera-bench', version: SERVER_VERSION }, { state: { keys: generateStateKey() }, ...tasks, ...legacy, ...stores });

server.tool(ECHO_TOOL, { description: 'Returns its text', input: EchoInput }, ({ text }) => text);

server.tool(CONFIRM_TOOL, { description: 'Asks for approval once, then answers', input: ConfirmInput }, async ({ item }, ctx) => {
  const answer = await ctx.ask(ask.form(confirmMessage(item), ApproveAnswer, { key: CONFIRM_KEY }));
  return answer.action === 'accept' && answer.content.approve ? confirmedText(item) : declinedText(item);
});

server.tool(WIZARD_TOOL, { description: 'Asks a name, reserves once, asks a colour', input: WizardInput }, async ({ order }, ctx) => {
  const who = await ctx.ask(ask.form(WIZARD_NAME_MESSAGE, NameAnswer, { key: WIZARD_NAME_KEY }));
  if (who.action !== 'accept') return toolError(`name: ${who.action}`);
  // The side effect runs in round 2 only; round 3 gets its result back from the sealed state.
  const reservation = await ctx.once('reserve', () => reservations.reserve(order));
  const colour = await ctx.ask(ask.form(WIZARD_COLOR_MESSAGE, ColorAnswer, { key: WIZARD_COLOR_KEY }));
  if (colour.action !== 'accept') return toolError(`color: ${colour.action}`);
  return wizardText(order, who.content.name, colour.content.color, reservation);
});

for (const filler of FILLER_TOOLS) {
  server.tool(filler.name, { description: filler.description, input: FillerInput }, ({ query }) => `No records match ${query}.`);
}

if (values.payloads) {
  server.resource({ uri: BIG_RESOURCE_URI, name: BIG_RESOURCE_NAME, mimeType: 'text/plain' }, () => BIG_RESOURCE_TEXT);
  server.tool(LENGTH_TOOL, { description: 'Returns the length of its data', input: LengthInput }, ({ data }) => String(data.length));
  server.tool(TASK_TOOL, { description: 'Finishes at once, as a task when the client takes tasks', input: TaskInput, task: 'optional' }, ({ job }, ctx) =>
    ctx.task(() => taskDoneText(job)),
  );
}
if (values.many) {
  for (const filler of EXTRA_FILLER_TOOLS) {
    server.tool(filler.name, { description: filler.description, input: FillerInput }, ({ query }) => `No records match ${query}.`);
  }
}

// Before the first request: the server takes its meter on first use.
// Loaded only when asked: the SDK's modules would otherwise add to every server's start-up (and its profile).
if (values.telemetry) (await import('./telemetry-sdk.js')).installTelemetrySdk();

/** The auth option of the JWT rows: the issuer from the load generator, the served URL as the resource. */
function protection(): Parameters<typeof serveHttp>[1] {
  if (!values.auth && !values['auth-no-cache']) return {};
  const issuer = process.env[ISSUER_ENV];
  if (!issuer) throw new Error(`--auth needs ${ISSUER_ENV}`);
  const verifier = values['auth-no-cache'] ? jwtAccessTokens({ cacheMs: 0 }) : undefined;
  return { auth: protectedResource({ issuer, scopes: [BENCH_SCOPE], ...(verifier ? { verifier } : {}) }) };
}

if (values.stdio) {
  serveStdio(server);
} else {
  const running = await serveHttp(server, { port: 0, ...protection(), timeouts: { keepAliveMs: Number(values['keep-alive-ms']) } });
  // The fan-out cells' change: one more tool, which every listen stream that agreed to toolsListChanged is told about.
  let added = 0;
  const addTool = (): void => {
    server.tool(`added_${++added}`, { description: 'Added while running', input: EchoInput }, ({ text }) => text);
  };
  await announceListening(
    running.url,
    async () => {
      await running.close();
      await stores.stores?.close();
    },
    () => ({ reservations: reservations.count }),
    addTool,
  );
}
