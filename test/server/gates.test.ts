/**
 * The request gates over real HTTP (spec §3, §6, §12.3–§12.5, §19 "Validation
 * order"): each failure with its exact JSON-RPC code and HTTP status, every
 * error echoing the request id, and the Host/Origin defence.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { meta, rpc, startHttp, VERSION, type RpcOptions } from '../helpers/http.js';
import { rawMcpPost, type RawReply } from '../helpers/raw-http.js';
import { quietLogger } from '../helpers/results.js';
import { assertServerMessage } from '../helpers/wire-schema.js';

const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const INFO = 'io.modelcontextprotocol/clientInfo';

const sentinel = (text: string): string => `=?base64?${Buffer.from(text, 'utf8').toString('base64')}?=`;

/** Tools (one mirroring arguments into headers), a resource, and prompts (one with a non-ASCII name). */
function fullServer(): McpServer {
  const server = new McpServer({ name: 'gates', version: '1.0.0' }, { logger: quietLogger() });
  server.tool('echo', { description: 'Says ok' }, () => 'ok');
  server.tool(
    'mirror',
    {
      description: 'Arguments mirrored into Mcp-Param-* headers',
      input: {
        type: 'object',
        properties: {
          region: { type: 'string', 'x-mcp-header': 'Region' },
          count: { type: 'integer', 'x-mcp-header': 'Count' },
          dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' },
          target: { type: 'object', properties: { zone: { type: 'string', 'x-mcp-header': 'Zone' } } },
          note: { type: 'string' },
        },
      },
    },
    () => 'mirrored',
  );
  server.resource({ uri: 'test://docs/readme', name: 'readme' }, () => 'read me');
  server.prompt('greet', {}, () => 'hello');
  server.prompt('grüße', {}, () => 'hallo');
  return server;
}

/** Tools only: no prompts, no resources, hence no completions either. */
function toolsOnlyServer(): McpServer {
  const server = new McpServer({ name: 'tools-only', version: '1.0.0' }, { logger: quietLogger(), logging: false });
  server.tool('echo', { description: 'Says ok' }, () => 'ok');
  return server;
}

function errorOf(response: Record<string, unknown> | undefined): { code: number; message: string; data?: unknown } {
  expect(response, 'a JSON-RPC response').toBeDefined();
  expect(response, 'an error response').toHaveProperty('error');
  return response!.error as { code: number; message: string; data?: unknown };
}

let full: RunningHttpServer;
let toolsOnly: RunningHttpServer;

beforeAll(async () => {
  full = await startHttp(fullServer());
  toolsOnly = await startHttp(toolsOnlyServer());
});
afterAll(async () => {
  await full?.close();
  await toolsOnly?.close();
});

/* ------------------------------------------------------------------ */
/* Every gate failure: code, status, and the request id echoed.        */
/* ------------------------------------------------------------------ */

interface GateCase {
  name: string;
  target?: () => string;
  method: string;
  params?: Record<string, unknown>;
  /** Build the whole body (for a request without params). */
  body?: (id: string | number) => string;
  headers?: RpcOptions['headers'];
  code: number;
  status: number;
}

const mirrorArgs = { region: 'eu-west-1', count: 42, dry: true, target: { zone: 'b' } };
const mirrorHeaders = { 'mcp-param-region': 'eu-west-1', 'mcp-param-count': '42', 'mcp-param-dry-run': 'true', 'mcp-param-zone': 'b' };

const gateCases: GateCase[] = [
  // _meta (§3): -32602 on 400.
  { name: 'params without _meta', method: 'tools/list', params: { _meta: undefined }, code: -32602, status: 400 },
  {
    name: 'a request without params',
    method: 'tools/list',
    body: (id) => JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list' }),
    code: -32602,
    status: 400,
  },
  { name: '_meta that is not an object', method: 'tools/list', params: { _meta: 'modern' }, code: -32602, status: 400 },
  {
    name: 'missing protocolVersion despite a valid MCP-Protocol-Version header',
    method: 'tools/list',
    params: { _meta: meta({ [PV]: undefined }) },
    code: -32602,
    status: 400,
  },
  { name: 'missing clientCapabilities', method: 'tools/list', params: { _meta: meta({ [CAPS]: undefined }) }, code: -32602, status: 400 },
  // Version (§12.3): header vs body first, then support.
  {
    name: 'a body version that differs from the header',
    method: 'tools/list',
    params: { _meta: meta({ [PV]: '2099-01-01' }) },
    code: -32020,
    status: 400,
  },
  {
    name: 'a header version that differs from the body',
    method: 'tools/list',
    headers: { 'mcp-protocol-version': '2099-01-01' },
    code: -32020,
    status: 400,
  },
  {
    name: 'an unsupported version in header and body',
    method: 'tools/list',
    params: { _meta: meta({ [PV]: '2099-01-01' }) },
    headers: { 'mcp-protocol-version': '2099-01-01' },
    code: -32022,
    status: 400,
  },
  { name: 'no MCP-Protocol-Version header', method: 'tools/list', headers: { 'mcp-protocol-version': undefined }, code: -32020, status: 400 },
  // Mcp-Method (§12.3): required, equal, case-sensitive.
  { name: 'no Mcp-Method header', method: 'tools/list', headers: { 'mcp-method': undefined }, code: -32020, status: 400 },
  { name: 'an Mcp-Method for another method', method: 'tools/list', headers: { 'mcp-method': 'prompts/list' }, code: -32020, status: 400 },
  { name: 'an Mcp-Method in other case', method: 'tools/list', headers: { 'mcp-method': 'TOOLS/LIST' }, code: -32020, status: 400 },
  // Mcp-Name (§12.3).
  { name: 'tools/call without Mcp-Name', method: 'tools/call', params: { name: 'echo' }, headers: { 'mcp-name': undefined }, code: -32020, status: 400 },
  { name: 'tools/call with another Mcp-Name', method: 'tools/call', params: { name: 'echo' }, headers: { 'mcp-name': 'mirror' }, code: -32020, status: 400 },
  { name: 'prompts/get without Mcp-Name', method: 'prompts/get', params: { name: 'greet' }, headers: { 'mcp-name': undefined }, code: -32020, status: 400 },
  { name: 'prompts/get with another Mcp-Name', method: 'prompts/get', params: { name: 'greet' }, headers: { 'mcp-name': 'farewell' }, code: -32020, status: 400 },
  {
    name: 'resources/read without Mcp-Name',
    method: 'resources/read',
    params: { uri: 'test://docs/readme' },
    headers: { 'mcp-name': undefined },
    code: -32020,
    status: 400,
  },
  {
    name: 'resources/read with another Mcp-Name',
    method: 'resources/read',
    params: { uri: 'test://docs/readme' },
    headers: { 'mcp-name': 'test://docs/other' },
    code: -32020,
    status: 400,
  },
  // Mcp-Param-* (§12.4).
  {
    name: 'a mirrored argument without its header',
    method: 'tools/call',
    params: { name: 'mirror', arguments: mirrorArgs },
    headers: { ...mirrorHeaders, 'mcp-param-region': undefined },
    code: -32020,
    status: 400,
  },
  {
    name: 'a mirrored argument whose header differs',
    method: 'tools/call',
    params: { name: 'mirror', arguments: mirrorArgs },
    headers: { ...mirrorHeaders, 'mcp-param-region': 'us-east-1' },
    code: -32020,
    status: 400,
  },
  {
    name: 'a mirrored argument whose header holds malformed Base64',
    method: 'tools/call',
    params: { name: 'mirror', arguments: mirrorArgs },
    headers: { ...mirrorHeaders, 'mcp-param-region': '=?base64?ZXUt*2VzdC0x?=' },
    code: -32020,
    status: 400,
  },
  // Methods (§6): unknown, removed, or gated by an unadvertised capability → -32601 on 404.
  { name: 'an unknown method', method: 'tools/explode', code: -32601, status: 404 },
  { name: 'the removed ping', method: 'ping', code: -32601, status: 404 },
  { name: 'prompts/list on a server without prompts', target: () => toolsOnly.url, method: 'prompts/list', code: -32601, status: 404 },
];

async function sendCase(c: GateCase, id: string | number): Promise<Awaited<ReturnType<typeof rpc>>> {
  const url = c.target ? c.target() : full.url;
  const options: RpcOptions = { id, headers: c.headers };
  if (c.body) options.rawBody = c.body(id);
  return rpc(url, c.method, c.params, options);
}

describe.each(gateCases)('gate: $name', (c) => {
  it(`answers ${c.code} on HTTP ${c.status}, echoing a string id`, async () => {
    const reply = await sendCase(c, `gate-${c.code}-s`);
    expect(reply.status).toBe(c.status);
    expect(reply.contentType).toContain('application/json');
    expect(errorOf(reply.response).code).toBe(c.code);
    expect(reply.response!.id).toBe(`gate-${c.code}-s`);
  });

  it('echoes an integer id', async () => {
    const reply = await sendCase(c, 90210);
    expect(errorOf(reply.response).code).toBe(c.code);
    expect(reply.response!.id).toBe(90210);
  });
});

/* ------------------------------------------------------------------ */
/* _meta                                                               */
/* ------------------------------------------------------------------ */

describe('_meta', () => {
  it('does not require clientInfo', async () => {
    const reply = await rpc(full.url, 'tools/list', { _meta: meta({ [INFO]: undefined }) });
    expect(reply.status).toBe(200);
    expect(reply.response).toHaveProperty('result');
  });

  it('serves a request carrying exactly the required fields', async () => {
    const reply = await rpc(full.url, 'server/discover', { _meta: { [PV]: VERSION, [CAPS]: {} } });
    expect(reply.status).toBe(200);
    expect(reply.response).toHaveProperty('result.supportedVersions');
  });
});

/* ------------------------------------------------------------------ */
/* Versions                                                            */
/* ------------------------------------------------------------------ */

describe('unsupported protocol version (-32022)', () => {
  it.each([['2099-01-01'], ['2025-11-25'], ['not-a-version']])('names the supported versions and echoes %s', async (requested) => {
    const discover = await rpc(full.url, 'server/discover');
    const supported = (discover.response!.result as { supportedVersions: string[] }).supportedVersions;

    const reply = await rpc(full.url, 'tools/list', { _meta: meta({ [PV]: requested }) }, { headers: { 'mcp-protocol-version': requested } });
    expect(reply.status).toBe(400);
    const error = errorOf(reply.response);
    expect(error.code).toBe(-32022);
    const data = error.data as { supported: unknown; requested: unknown };
    expect(data.requested).toBe(requested);
    expect(Array.isArray(data.supported)).toBe(true);
    expect((data.supported as string[]).length).toBeGreaterThan(0);
    for (const version of data.supported as string[]) expect(supported).toContain(version);
  });
});

/* ------------------------------------------------------------------ */
/* Header syntax                                                       */
/* ------------------------------------------------------------------ */

function expectResult(reply: RawReply, method: string): void {
  expect(reply.status, reply.body).toBe(200);
  expect(reply.json).toHaveProperty('result');
  assertServerMessage(reply.json, method);
}

describe('header syntax', () => {
  it('compares header names case-insensitively', async () => {
    const reply = await rawMcpPost(full.url, 'tools/call', { name: 'echo' }, {
      'mCp-PrOtOcOl-VeRsIoN': VERSION,
      'MCP-METHOD': 'tools/call',
      'mcp-NAME': 'echo',
    });
    expectResult(reply, 'tools/call');
  });

  it('compares Mcp-Param-* names case-insensitively', async () => {
    const reply = await rawMcpPost(full.url, 'tools/call', { name: 'mirror', arguments: { region: 'eu' } }, {
      'Mcp-Name': 'mirror',
      'MCP-PARAM-REGION': 'eu',
    });
    expectResult(reply, 'tools/call');
  });

  it('trims whitespace around header values', async () => {
    const reply = await rawMcpPost(full.url, 'tools/call', { name: 'mirror', arguments: { region: 'eu' } }, {
      'MCP-Protocol-Version': `  ${VERSION}\t`,
      'Mcp-Method': ' tools/call ',
      'Mcp-Name': '\tmirror  ',
      'Mcp-Param-Region': '  eu ',
    });
    expectResult(reply, 'tools/call');
  });
});

/* ------------------------------------------------------------------ */
/* Mcp-Name                                                            */
/* ------------------------------------------------------------------ */

describe('Mcp-Name', () => {
  it('accepts the Base64 sentinel of an ASCII tool name (decoded before comparing)', async () => {
    const reply = await rpc(full.url, 'tools/call', { name: 'echo' }, { headers: { 'mcp-name': sentinel('echo') } });
    expect(reply.status).toBe(200);
    expect(reply.response).toHaveProperty('result');
  });

  it('passes a non-ASCII tool name sent as the Base64 sentinel to the method (unknown tool, not a header error)', async () => {
    // Tool names are ASCII on this server, so the call reaches tools/call and fails there as an unknown tool.
    const reply = await rpc(full.url, 'tools/call', { name: 'wërkzeug' }, { headers: { 'mcp-name': sentinel('wërkzeug') } });
    expect(errorOf(reply.response).code).toBe(-32602);
  });

  it('accepts the Base64 sentinel of a non-ASCII prompt name', async () => {
    const reply = await rpc(full.url, 'prompts/get', { name: 'grüße' }, { headers: { 'mcp-name': sentinel('grüße') } });
    expect(reply.status).toBe(200);
    expect(reply.response).toHaveProperty('result.messages');
  });

  it('accepts the Base64 sentinel of a resource URI', async () => {
    const reply = await rpc(full.url, 'resources/read', { uri: 'test://docs/readme' }, { headers: { 'mcp-name': sentinel('test://docs/readme') } });
    expect(reply.status).toBe(200);
    expect(reply.response).toHaveProperty('result.contents');
  });

  it('rejects a sentinel that decodes to another name', async () => {
    const reply = await rpc(full.url, 'prompts/get', { name: 'grüße' }, { headers: { 'mcp-name': sentinel('greet') } });
    expect(reply.status).toBe(400);
    expect(errorOf(reply.response).code).toBe(-32020);
  });

  it('rejects a sentinel with malformed Base64', async () => {
    const reply = await rpc(full.url, 'tools/call', { name: 'echo' }, { headers: { 'mcp-name': '=?base64?ZWNobw?=' } });
    expect(reply.status).toBe(400);
    expect(errorOf(reply.response).code).toBe(-32020);
  });

  it('rejects a non-ASCII name sent raw instead of as the sentinel', async () => {
    const reply = await rawMcpPost(full.url, 'prompts/get', { name: 'grüße' }, { 'Mcp-Name': 'grüße' });
    expect(reply.status).toBe(400);
    expect((reply.json?.error as { code: number }).code).toBe(-32020);
  });

  it('treats an upper-case look-alike of the sentinel as a literal', async () => {
    const reply = await rpc(full.url, 'tools/call', { name: 'echo' }, { headers: { 'mcp-name': '=?BASE64?ZWNobw==?=' } });
    expect(reply.status).toBe(400);
    expect(errorOf(reply.response).code).toBe(-32020);
  });
});

/* ------------------------------------------------------------------ */
/* Mcp-Param-*                                                         */
/* ------------------------------------------------------------------ */

describe('Mcp-Param-* for x-mcp-header arguments', () => {
  const callMirror = (args: Record<string, unknown>, headers: RpcOptions['headers']) =>
    rpc(full.url, 'tools/call', { name: 'mirror', arguments: args }, { headers });

  async function expectAccepted(args: Record<string, unknown>, headers: RpcOptions['headers']): Promise<void> {
    const reply = await callMirror(args, headers);
    expect(reply.status).toBe(200);
    expect(reply.response).toHaveProperty('result');
  }

  async function expectMismatch(args: Record<string, unknown>, headers: RpcOptions['headers']): Promise<void> {
    const reply = await callMirror(args, headers);
    expect(reply.status).toBe(400);
    expect(errorOf(reply.response).code).toBe(-32020);
  }

  it('accepts headers that mirror every present argument', async () => {
    await expectAccepted(mirrorArgs, mirrorHeaders);
  });

  it('needs no header for an absent argument', async () => {
    await expectAccepted({ note: 'nothing mirrored' }, {});
    await expectAccepted({ region: 'eu' }, { 'mcp-param-region': 'eu' });
  });

  it('needs no header for a null argument', async () => {
    const reply = await callMirror({ region: null }, {});
    expect(reply.status).toBe(200);
    expect(reply.response).toHaveProperty('result');
  });

  it('rejects a missing header for each mirrored type, including a nested property', async () => {
    await expectMismatch({ count: 42 }, {});
    await expectMismatch({ dry: false }, {});
    await expectMismatch({ target: { zone: 'b' } }, {});
  });

  it('rejects a header when the argument is not in the body', async () => {
    await expectMismatch({}, { 'mcp-param-region': 'eu' });
  });

  it('compares integers numerically', async () => {
    await expectAccepted({ count: 42 }, { 'mcp-param-count': '42' });
    await expectAccepted({ count: 42 }, { 'mcp-param-count': '42.0' });
    await expectAccepted({ count: -3 }, { 'mcp-param-count': '-3' });
    await expectMismatch({ count: 42 }, { 'mcp-param-count': '43' });
    await expectMismatch({ count: 42 }, { 'mcp-param-count': 'forty-two' });
    await expectMismatch({ count: 42 }, { 'mcp-param-count': '' });
  });

  it('compares booleans as true/false', async () => {
    await expectAccepted({ dry: true }, { 'mcp-param-dry-run': 'true' });
    await expectAccepted({ dry: false }, { 'mcp-param-dry-run': 'false' });
    await expectMismatch({ dry: true }, { 'mcp-param-dry-run': 'false' });
    await expectMismatch({ dry: false }, { 'mcp-param-dry-run': '0' });
  });

  it('compares strings exactly (values are case-sensitive)', async () => {
    await expectMismatch({ region: 'eu' }, { 'mcp-param-region': 'EU' });
  });

  it('accepts an empty string mirrored as an empty header', async () => {
    await expectAccepted({ region: '' }, { 'mcp-param-region': '' });
  });

  it('decodes Base64 sentinels before comparing', async () => {
    await expectAccepted({ region: ' padded ' }, { 'mcp-param-region': sentinel(' padded ') });
    await expectAccepted({ region: 'Zürich' }, { 'mcp-param-region': sentinel('Zürich') });
    await expectAccepted({ count: 7 }, { 'mcp-param-count': sentinel('7') });
    await expectMismatch({ region: 'Zürich' }, { 'mcp-param-region': sentinel('Zurich') });
  });

  it('rejects malformed Base64 in a sentinel', async () => {
    await expectMismatch({ region: 'Hello' }, { 'mcp-param-region': '=?base64?SGVsbG8?=' });
    await expectMismatch({ region: 'Hello' }, { 'mcp-param-region': '=?base64?SGV*bG8=?=' });
    await expectMismatch({ region: '\u00ff' }, { 'mcp-param-region': '=?base64?/w==?=' });
  });

  it('rejects a raw non-ASCII value (it must travel as the sentinel)', async () => {
    const reply = await rawMcpPost(full.url, 'tools/call', { name: 'mirror', arguments: { region: 'Zürich' } }, {
      'Mcp-Name': 'mirror',
      'Mcp-Param-Region': 'Zürich',
    });
    expect(reply.status).toBe(400);
    expect((reply.json?.error as { code: number }).code).toBe(-32020);
  });
});

/* ------------------------------------------------------------------ */
/* Methods                                                             */
/* ------------------------------------------------------------------ */

describe('methods that do not exist here', () => {
  it.each([
    ['initialize', { protocolVersion: '2026-07-28', capabilities: {}, clientInfo: { name: 'x', version: '1' } }],
    ['ping', {}],
    ['logging/setLevel', { level: 'info' }],
    ['resources/subscribe', { uri: 'test://docs/readme' }],
    ['resources/unsubscribe', { uri: 'test://docs/readme' }],
    ['tasks/result', { taskId: 't-1' }],
    ['tasks/list', {}],
    ['notifications/initialized', {}],
    ['Tools/List', {}],
    ['tools/list/', {}],
  ])('%s (with modern _meta) is -32601 on 404', async (method, params) => {
    const headers = method.startsWith('tasks/') ? { 'mcp-name': 't-1' } : {};
    const reply = await rpc(full.url, method, params, { headers });
    expect(reply.status).toBe(404);
    expect(errorOf(reply.response).code).toBe(-32601);
  });

  it('on a modern-only server (legacy: false), rejects a legacy initialize POST (no modern headers, no _meta) with 400, naming the supported versions', async () => {
    const modernOnly = await startHttp(new McpServer({ name: 'modern-only', version: '1.0.0' }, { logger: quietLogger(), legacy: false }));
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 'legacy-1',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } },
    });
    const reply = await rpc(modernOnly.url, 'initialize', undefined, {
      rawBody: body,
      headers: { 'mcp-protocol-version': undefined, 'mcp-method': undefined },
    });
    await modernOnly.close();
    expect(reply.status).toBe(400);
    expect(reply.response!.id).toBe('legacy-1');
    const data = errorOf(reply.response).data as { supported?: unknown };
    expect(data?.supported).toContain(VERSION);
  });

  it('advertises neither prompts nor resources nor completions on the tools-only server', async () => {
    const discover = await rpc(toolsOnly.url, 'server/discover');
    const capabilities = (discover.response!.result as { capabilities: Record<string, unknown> }).capabilities;
    expect(capabilities).not.toHaveProperty('prompts');
    expect(capabilities).not.toHaveProperty('resources');
    expect(capabilities).not.toHaveProperty('completions');
  });

  it.each([
    ['prompts/list', {}],
    ['prompts/get', { name: 'greet' }],
    ['resources/list', {}],
    ['resources/templates/list', {}],
    ['resources/read', { uri: 'test://docs/readme' }],
    ['completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'a', value: '' } }],
  ])('%s on a server that does not advertise its capability is -32601 on 404', async (method, params) => {
    const reply = await rpc(toolsOnly.url, method, params);
    expect(reply.status).toBe(404);
    expect(errorOf(reply.response).code).toBe(-32601);
  });
});

/* ------------------------------------------------------------------ */
/* Host / Origin (§12.5)                                               */
/* ------------------------------------------------------------------ */

describe('DNS-rebinding defence', () => {
  let custom: RunningHttpServer;
  let open: RunningHttpServer;
  beforeAll(async () => {
    custom = await startHttp(fullServer(), { allowedHosts: ['mcp.example.com'] });
    open = await startHttp(fullServer(), { dnsRebindingProtection: false });
  });
  afterAll(async () => {
    await custom?.close();
    await open?.close();
  });

  const discover = (url: string, headers: Record<string, string>) => rawMcpPost(url, 'server/discover', {}, headers);

  function expectForbidden(reply: RawReply): void {
    expect(reply.status).toBe(403);
    // The body MAY be a JSON-RPC error without id; if it is JSON it must be valid wire.
    if (reply.json !== undefined) {
      assertServerMessage(reply.json);
      expect(reply.json).not.toHaveProperty('result');
    }
  }

  it('refuses a foreign Host', async () => {
    expectForbidden(await discover(full.url, { Host: 'evil.example' }));
    expectForbidden(await discover(full.url, { Host: `evil.example:${full.port}` }));
  });

  it('refuses a foreign Origin', async () => {
    expectForbidden(await discover(full.url, { Origin: 'http://evil.example' }));
    expectForbidden(await discover(full.url, { Origin: `http://evil.example:${full.port}` }));
    expectForbidden(await discover(full.url, { Origin: 'null' }));
  });

  it('is not fooled by look-alike hosts and origins', async () => {
    expectForbidden(await discover(full.url, { Host: 'localhost.evil.example' }));
    expectForbidden(await discover(full.url, { Host: '127.0.0.1.nip.io' }));
    expectForbidden(await discover(full.url, { Origin: 'http://localhost.evil.example' }));
    expectForbidden(await discover(full.url, { Origin: 'http://127.0.0.1@evil.example' }));
    expectForbidden(await discover(full.url, { Origin: 'file://localhost' }));
  });

  it('serves loopback Hosts with a port and a matching Origin', async () => {
    expectResult(await discover(full.url, { Host: `localhost:${full.port}`, Origin: `http://localhost:${full.port}` }), 'server/discover');
    expectResult(await discover(full.url, { Host: `127.0.0.1:${full.port}`, Origin: `http://127.0.0.1:${full.port}` }), 'server/discover');
    expectResult(await discover(full.url, { Host: `localhost:${full.port}` }), 'server/discover');
  });

  it('honours allowedHosts', async () => {
    expectResult(await discover(custom.url, { Host: 'mcp.example.com' }), 'server/discover');
    expectResult(await discover(custom.url, { Host: 'mcp.example.com:8443', Origin: 'https://mcp.example.com' }), 'server/discover');
    expectForbidden(await discover(custom.url, { Host: 'evil.example' }));
    expectForbidden(await discover(custom.url, { Host: 'mcp.example.com', Origin: 'https://evil.example' }));
  });

  it('is off with dnsRebindingProtection: false', async () => {
    expectResult(await discover(open.url, { Host: 'evil.example', Origin: 'http://evil.example' }), 'server/discover');
  });
});
