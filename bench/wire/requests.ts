/**
 * 2026-07-28 requests as the load generator sends them: every request carries
 * the `_meta` envelope (protocol version, client info, client capabilities)
 * and the Streamable HTTP metadata headers (MCP-Protocol-Version, Mcp-Method
 * and, for tools/call, Mcp-Name), so each server runs its full gate path.
 */

export const PROTOCOL_VERSION = '2026-07-28';

/** The client declares form elicitation, which the MRTR tools need. */
const ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'tessera-bench-loadgen', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

/** What a retry carries: the answers under the keys asked, and the state exactly as received. */
export interface Retry {
  inputResponses: Record<string, unknown>;
  requestState: string;
}

/** A body with its params serialized once; only the id changes per request (the load generator's own CPU is the ceiling's limit). */
export type BodyTemplate = (id: number) => string;

// `id` comes first, so the bare server can copy it without parsing the body.
function template(method: string, params: Record<string, unknown>): BodyTemplate {
  const head = '{"jsonrpc":"2.0","id":';
  const tail = `,"method":${JSON.stringify(method)},"params":${JSON.stringify(params)}}`;
  return (id) => head + id + tail;
}

export function toolsCallTemplate(name: string, args: Record<string, unknown>): BodyTemplate {
  return template('tools/call', { _meta: ENVELOPE, name, arguments: args });
}

export function toolsListTemplate(): BodyTemplate {
  return template('tools/list', { _meta: ENVELOPE });
}

/** A retry: the same call plus the answers and the requestState, serialized afresh since the state differs every time. */
export function toolsCallRetryBody(id: number, name: string, args: Record<string, unknown>, retry: Retry): string {
  const params = { _meta: ENVELOPE, name, arguments: args, inputResponses: retry.inputResponses, requestState: retry.requestState };
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params });
}

const BASE_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': PROTOCOL_VERSION,
};

export function toolsCallHeaders(name: string): Record<string, string> {
  return { ...BASE_HEADERS, 'mcp-method': 'tools/call', 'mcp-name': name };
}

export function toolsListHeaders(): Record<string, string> {
  return { ...BASE_HEADERS, 'mcp-method': 'tools/list' };
}

/** The answer a form elicitation gets back: the bare `{action, content}` result. */
export function accepted(content: Record<string, unknown>): { action: 'accept'; content: Record<string, unknown> } {
  return { action: 'accept', content };
}

/** The envelope with the Tasks extension declared as well: the task tool then answers with a task. */
const TASKS_ENVELOPE = {
  ...ENVELOPE,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} }, extensions: { 'io.modelcontextprotocol/tasks': {} } },
};

export function taskCallTemplate(name: string, args: Record<string, unknown>): BodyTemplate {
  return template('tools/call', { _meta: TASKS_ENVELOPE, name, arguments: args });
}

/** tasks/get must declare the extension too; the task id differs per flow, so the body is built afresh. */
export function tasksGetBody(id: number, taskId: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tasks/get', params: { _meta: TASKS_ENVELOPE, taskId } });
}

/** Over HTTP the task id rides in Mcp-Name. */
export function tasksGetHeaders(taskId: string): Record<string, string> {
  return { ...BASE_HEADERS, 'mcp-method': 'tasks/get', 'mcp-name': taskId };
}

export function resourcesReadTemplate(uri: string): BodyTemplate {
  return template('resources/read', { _meta: ENVELOPE, uri });
}

export function resourcesReadHeaders(uri: string): Record<string, string> {
  return { ...BASE_HEADERS, 'mcp-method': 'resources/read', 'mcp-name': uri };
}

/** A later page of tools/list: the cursor the previous page ended with. */
export function toolsListPageBody(id: number, cursor: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: ENVELOPE, cursor } });
}

/** A `subscriptions/listen` for tools/list_changed (both servers advertise tools.listChanged): the stream stays open. */
export function listenTemplate(): BodyTemplate {
  return template('subscriptions/listen', { _meta: ENVELOPE, notifications: { toolsListChanged: true } });
}

export function listenHeaders(): Record<string, string> {
  return { ...BASE_HEADERS, 'mcp-method': 'subscriptions/listen' };
}
