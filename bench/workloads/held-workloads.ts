/**
 * The memory rows of the scale phase: what a server holds for many
 * connections or streams that stay open. Each unit gets a connection of its
 * own (harness/held-connections.ts) and is checked before it counts:
 *
 * - an idle keep-alive connection after one 2026-07-28 `tools/call` echo
 *   (the echoed text checked);
 * - a 2026-07-28 `subscriptions/listen` stream (toolsListChanged), held
 *   once its first event is the acknowledgement with the listen request's
 *   id and the filter agreed;
 * - a 2025-11-25 session with its standalone GET stream: initialize (a
 *   session id, 2025-11-25 negotiated), notifications/initialized (202),
 *   then the GET, held once it answered 200 text/event-stream.
 */

import type { ServerId, SystemId } from '../systems.js';
import type { HeldConnection } from '../harness/held-connections.js';
import { ECHO_TEXT, ECHO_TOOL } from '../tools/catalog.js';
import { expectText, resultOf } from '../wire/checks.js';
import { expectAccepted, expectSessionCreated } from '../wire/legacy-checks.js';
import { getStreamHeaders, INITIALIZE_HEADERS, INITIALIZED_BODY, initializeTemplate, sessionPostHeaders } from '../wire/legacy-requests.js';
import { listenHeaders, listenTemplate, toolsCallHeaders, toolsCallTemplate } from '../wire/requests.js';

export interface HeldWorkload {
  id: string;
  label: string;
  /** How many connections or streams are held at once. */
  count: number;
  /** Column → the server measured for it (a fresh process per cell). */
  systems: Partial<Record<SystemId, ServerId>>;
  /** Opens unit `index` on `connection`; an error message, or undefined once it is open and checked. */
  open(connection: HeldConnection, index: number): Promise<string | undefined>;
  /**
   * What is measured while the units are held: echo latency (an autocannon
   * cell on new connections), or fan-out (one change, the time until every
   * held stream was told, from a marker its notification carries).
   */
  whileHeld?: { kind: 'echo' } | { kind: 'fan-out'; marker: string };
}

const echoBody = toolsCallTemplate(ECHO_TOOL, { text: ECHO_TEXT });
const listenBody = listenTemplate();

async function idleAfterEcho(connection: HeldConnection, index: number): Promise<string | undefined> {
  const id = index + 1;
  const reply = await connection.send({ method: 'POST', headers: toolsCallHeaders(ECHO_TOOL), body: echoBody(id) }, 'body');
  const result = resultOf(reply.status, reply.text, id);
  return typeof result === 'string' ? result : expectText(result, { text: ECHO_TEXT });
}

/** The `data:` of an SSE event, parsed. */
function eventData(event: string): Record<string, unknown> | string {
  const data = event
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trimStart())
    .join('\n');
  try {
    return JSON.parse(data) as Record<string, unknown>;
  } catch {
    return `first event is not JSON: ${event.slice(0, 200)}`;
  }
}

async function listenStream(connection: HeldConnection, index: number): Promise<string | undefined> {
  const id = index + 1;
  const reply = await connection.send({ method: 'POST', headers: listenHeaders(), body: listenBody(id) }, 'first-event');
  if (reply.status !== 200) return `listen answered HTTP ${reply.status}: ${reply.text.slice(0, 200)}`;
  if (!String(reply.headers['content-type']).startsWith('text/event-stream')) return `listen answered ${String(reply.headers['content-type'])}, not a stream`;
  const message = eventData(reply.text);
  if (typeof message === 'string') return message;
  const params = message.params as Record<string, unknown> | undefined;
  const meta = params?._meta as Record<string, unknown> | undefined;
  if (message.method !== 'notifications/subscriptions/acknowledged') return `first event is ${String(message.method ?? JSON.stringify(message).slice(0, 200))}, not the acknowledgement`;
  if (meta?.['io.modelcontextprotocol/subscriptionId'] !== id) return 'acknowledgement for another subscription id';
  if ((params?.notifications as Record<string, unknown> | undefined)?.toolsListChanged !== true) return 'toolsListChanged not agreed';
  return undefined;
}

async function sessionWithGetStream(connection: HeldConnection, index: number): Promise<string | undefined> {
  const id = index + 1;
  const init = await connection.send({ method: 'POST', headers: INITIALIZE_HEADERS, body: initializeTemplate(id) }, 'body');
  const created = expectSessionCreated(init.status, init.text, id, init.headers);
  if (typeof created === 'string') return created;
  const initialized = await connection.send({ method: 'POST', headers: sessionPostHeaders(created.sessionId), body: INITIALIZED_BODY }, 'body');
  const refused = expectAccepted(initialized.status);
  if (refused) return refused;
  const stream = await connection.send({ method: 'GET', headers: getStreamHeaders(created.sessionId) }, 'headers');
  if (stream.status !== 200) return `GET stream answered HTTP ${stream.status}`;
  if (!String(stream.headers['content-type']).startsWith('text/event-stream')) return `GET stream answered ${String(stream.headers['content-type'])}`;
  return undefined;
}

export const HELD_WORKLOADS: readonly HeldWorkload[] = [
  {
    id: 'idle-connections-10k',
    label: '10,000 idle keep-alive connections, one echo each',
    count: 10_000,
    systems: { tessera: 'tesseraHeld', tesseraRedis: 'tesseraHeldRedis', official: 'officialHeld', bare: 'bareHeld' },
    open: idleAfterEcho,
    whileHeld: { kind: 'echo' },
  },
  {
    id: 'listen-streams-1k',
    label: '1,000 open subscriptions/listen streams (2026-07-28)',
    count: 1_000,
    systems: { tessera: 'tesseraHeld', tesseraRedis: 'tesseraHeldRedis', official: 'officialHeld' },
    open: listenStream,
    // Only where the server has a change hook (servers/diagnostics.ts POST /change): the official bench server has none.
    whileHeld: { kind: 'fan-out', marker: 'notifications/tools/list_changed' },
  },
  {
    id: 'legacy-get-streams-1k',
    label: '1,000 2025-11-25 sessions, each with its GET stream open',
    count: 1_000,
    systems: { tessera: 'tesseraHeld', tesseraRedis: 'tesseraHeldRedis', official: 'officialSessions' },
    open: sessionWithGetStream,
  },
];
