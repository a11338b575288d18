/**
 * The ceiling: a bare node:http server that reads the request body and
 * answers with a body prepared at startup. No JSON parsing, no validation, no
 * MCP: it picks the body by the `Mcp-Method` / `Mcp-Name` headers and, for the
 * MRTR flows, by which fixed `requestState` the body carries (a substring
 * test). Only the JSON-RPC id is copied from the request, so every response
 * still answers its own request and the load generator checks it like any other.
 *
 *   node dist/bench/servers/bare.js    (prints "listening <url>" on stderr)
 *   --keep-alive-ms N   idle kept-alive connections stay open N ms (default 65 s, as Tessera's serveHttp)
 *   --json              the JSON floor and the MRTR ceiling: every body goes through JSON.parse, the
 *                       reply is picked from the parsed request (method, tool name, requestState) and
 *                       goes through JSON.stringify (of the same result objects), still with no MCP at
 *                       all. What any server that reads its input pays over the bare server; for an MRTR
 *                       exchange, its two requests parsed and answered (bench/README.md).
 */

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import {
  CONFIRM_ITEM,
  CONFIRM_KEY,
  CONFIRM_TOOL,
  confirmedText,
  confirmMessage,
  ECHO_TEXT,
  ECHO_TOOL,
  FILLER_TOOLS,
  WIZARD_COLOR_ANSWER,
  WIZARD_COLOR_KEY,
  WIZARD_COLOR_MESSAGE,
  WIZARD_NAME_ANSWER,
  WIZARD_NAME_KEY,
  WIZARD_NAME_MESSAGE,
  WIZARD_ORDER,
  WIZARD_TOOL,
  wizardText,
} from '../tools/catalog.js';
import { announceListening, KEEP_ALIVE_OPTION } from './diagnostics.js';

const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'bare-bench', version: '0' } };
const CONFIRM_STATE = 'bare-confirm-1';
const WIZARD_STATE_1 = 'bare-wizard-1';
const WIZARD_STATE_2 = 'bare-wizard-2';

const textResult = (text: string): object => ({ content: [{ type: 'text', text }], resultType: 'complete', _meta: SERVER_INFO });

const formRequest = (message: string, property: string, type: string): object => ({
  method: 'elicitation/create',
  params: { mode: 'form', message, requestedSchema: { type: 'object', properties: { [property]: { type } }, required: [property] } },
});

const inputRequired = (key: string, request: object, requestState: string): object => ({
  resultType: 'input_required',
  inputRequests: { [key]: request },
  requestState,
  _meta: SERVER_INFO,
});

// The same descriptor the SDKs derive from the zod schema, so the list body is as large as theirs (≈19 KB).
const toolDescriptor = (name: string, description: string): object => ({
  name,
  description,
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: {
      query: { type: 'string', description: 'What to look for' },
      limit: { description: 'Most records to return', type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
    },
    required: ['query'],
  },
});

const TOOLS_LIST = {
  tools: [
    toolDescriptor(ECHO_TOOL, 'Returns its text'),
    toolDescriptor(CONFIRM_TOOL, 'Asks for approval once, then answers'),
    toolDescriptor(WIZARD_TOOL, 'Asks a name, reserves once, asks a colour'),
    ...FILLER_TOOLS.map((tool) => toolDescriptor(tool.name, tool.description)),
  ],
  resultType: 'complete',
  ttlMs: 60_000,
  cacheScope: 'public',
  _meta: SERVER_INFO,
};

const RESULTS = {
  echo: textResult(ECHO_TEXT),
  list: TOOLS_LIST,
  confirmAsk: inputRequired(CONFIRM_KEY, formRequest(confirmMessage(CONFIRM_ITEM), 'approve', 'boolean'), CONFIRM_STATE),
  confirmDone: textResult(confirmedText(CONFIRM_ITEM)),
  wizardAskName: inputRequired(WIZARD_NAME_KEY, formRequest(WIZARD_NAME_MESSAGE, 'name', 'string'), WIZARD_STATE_1),
  wizardAskColor: inputRequired(WIZARD_COLOR_KEY, formRequest(WIZARD_COLOR_MESSAGE, 'color', 'string'), WIZARD_STATE_2),
  wizardDone: textResult(wizardText(WIZARD_ORDER, WIZARD_NAME_ANSWER, WIZARD_COLOR_ANSWER, `${WIZARD_ORDER}-bare`)),
};
type ResultName = keyof typeof RESULTS;

/** Everything after `"id":<id>` of each reply, ready to be glued to the id of the request. */
const TAILS = Object.fromEntries(Object.entries(RESULTS).map(([name, result]) => [name, Buffer.from(`,"result":${JSON.stringify(result)}}`)])) as Record<ResultName, Buffer>;
const HEAD = Buffer.from('{"jsonrpc":"2.0","id":');

function resultFor(req: IncomingMessage, text: string): ResultName | undefined {
  const method = req.headers['mcp-method'];
  if (method === 'tools/list') return 'list';
  if (method !== 'tools/call') return undefined;
  switch (req.headers['mcp-name']) {
    case ECHO_TOOL:
      return 'echo';
    case CONFIRM_TOOL:
      return text.includes(CONFIRM_STATE) ? 'confirmDone' : 'confirmAsk';
    case WIZARD_TOOL:
      if (text.includes(WIZARD_STATE_2)) return 'wizardDone';
      return text.includes(WIZARD_STATE_1) ? 'wizardAskColor' : 'wizardAskName';
    default:
      return undefined;
  }
}

/** The request's JSON-RPC id as written (a number or a quoted string), found without parsing the body. */
function idOf(text: string): string {
  const at = text.indexOf('"id":');
  if (at < 0) return 'null';
  let end = at + 5;
  while (end < text.length && text[end] !== ',' && text[end] !== '}') end++;
  return text.slice(at + 5, end);
}

function answer(req: IncomingMessage, res: ServerResponse, text: string): void {
  const name = resultFor(req, text);
  if (!name) {
    res.writeHead(404).end();
    return;
  }
  const reply = Buffer.concat([HEAD, Buffer.from(idOf(text)), TAILS[name]]);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': reply.length }).end(reply);
}

/** A request as the JSON floor reads it: only what it routes on. */
interface ParsedRequest {
  id?: unknown;
  method?: unknown;
  params?: { name?: unknown; requestState?: unknown };
}

/** The reply of the JSON floor, picked from the parsed message itself (method, tool name, requestState), not the headers. */
function parsedResultFor(message: ParsedRequest): ResultName | undefined {
  if (message.method === 'tools/list') return 'list';
  if (message.method !== 'tools/call') return undefined;
  const state = message.params?.requestState;
  switch (message.params?.name) {
    case ECHO_TOOL:
      return 'echo';
    case CONFIRM_TOOL:
      return state === CONFIRM_STATE ? 'confirmDone' : 'confirmAsk';
    case WIZARD_TOOL:
      if (state === WIZARD_STATE_2) return 'wizardDone';
      return state === WIZARD_STATE_1 ? 'wizardAskColor' : 'wizardAskName';
    default:
      return undefined;
  }
}

/**
 * The JSON floor's answer, which is also the MRTR ceiling: the body parsed,
 * the reply chosen from the parsed request (an MRTR exchange is the call,
 * a fixed input_required reply, the retry parsed again, the final reply),
 * the reply object serialised, as any JSON-RPC server must.
 */
function answerJson(_req: IncomingMessage, res: ServerResponse, text: string): void {
  let message: ParsedRequest;
  try {
    message = JSON.parse(text) as ParsedRequest;
  } catch {
    res.writeHead(400).end();
    return;
  }
  const name = parsedResultFor(message);
  if (!name) {
    res.writeHead(404).end();
    return;
  }
  const reply = JSON.stringify({ jsonrpc: '2.0', id: message.id, result: RESULTS[name] });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(reply)) }).end(reply);
}

const { values } = parseArgs({ options: { ...KEEP_ALIVE_OPTION, json: { type: 'boolean', default: false } } });
const respond = values.json ? answerJson : answer;
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => respond(req, res, Buffer.concat(chunks).toString('utf8')));
});
server.keepAliveTimeout = Number(values['keep-alive-ms']);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
await announceListening(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, () => {
  server.closeAllConnections();
  server.close();
});
