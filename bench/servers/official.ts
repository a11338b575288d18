/**
 * The official TypeScript SDK v2 (2.4.0) benchmark server: the shared tool
 * catalogue on `createMcpHandler` (stateless, a fresh McpServer per request as
 * the SDK requires) or `serveStdio`, modern era only.
 *
 * The SDK has no `ctx.ask`/`ctx.once`: a tool returns `inputRequired(...)`
 * and finds the answers in `ctx.mcpReq.inputResponses` when the client
 * retries. The MRTR tools below do by hand what Tessera does for its authors:
 * remember the step (and the `once` result) in `requestState`.
 *
 *   --state plain   requestState is plain JSON, unprotected (the SDK default)
 *   --state codec   createRequestStateCodec (created once per process): HMAC-SHA256 signed (not
 *                   encrypted); the tool name and arguments ride in the payload and are compared
 *                   by hand, the nearest the SDK gets to Tessera's sealed claims
 *   --bind          also give the codec a `bind` on the method (a second HMAC per mint and per
 *                   verify; redundant here, since the handler compares tool and arguments)
 *   --response-mode json|auto   createMcpHandler's responseMode (default json)
 *   --tools LIST    register only these tools (comma-separated: echo, confirm, wizard, lookup for
 *                   the 47 fillers; length for the 64 KiB-argument tool, resource for the 1 MiB
 *                   resource, many for the 950 fillers that make 1,000 tools; default the 50 of the
 *                   catalogue). The factory registers every tool on every
 *                   request, so the SDK at its best registers only what the workload calls
 *   --auth          every request needs a JWT access token from $BENCH_AUTH_ISSUER with scope
 *                   mcp:read: the SDK's requireBearerAuth gate (expectedResource, requiredScopes)
 *                   with a verifier on jose (remote key set, issuer, audience, typ at+jwt), the
 *                   AuthInfo handed to the handler, as the SDK's docs show it
 *   --keep-alive-ms N   idle kept-alive connections stay open N ms (node:http keepAliveTimeout; default 65 s, as Tessera)
 *   --max-subscriptions N   createMcpHandler's cap on open subscriptions/listen streams (default the SDK's 1,024)
 *   --stdio         serve on stdin/stdout instead of HTTP
 */

import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import {
  acceptedContent,
  createMcpHandler,
  createRequestStateCodec,
  inputRequired,
  McpServer,
  requireBearerAuth,
  type CallToolResult,
  type InputRequiredResult,
  type McpHttpHandler,
  type OAuthTokenVerifier,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { BENCH_SCOPE, ISSUER_ENV } from '../harness/token-issuer.js';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type * as z from 'zod';
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
import { ApproveAnswer, ColorAnswer, ConfirmInput, EchoInput, FillerInput, LengthInput, NameAnswer, WizardInput } from '../tools/schemas.js';
import { announceListening, KEEP_ALIVE_OPTION } from './diagnostics.js';
import { nodeListener } from '../../fixtures/official-http-adapter.js';

const { values } = parseArgs({
  options: {
    stdio: { type: 'boolean', default: false },
    state: { type: 'string', default: 'plain' },
    'response-mode': { type: 'string', default: 'json' },
    tools: { type: 'string', default: 'echo,confirm,wizard,lookup' },
    auth: { type: 'boolean', default: false },
    bind: { type: 'boolean', default: false },
    ...KEEP_ALIVE_OPTION,
    'max-subscriptions': { type: 'string' },
  },
});
if (values.state !== 'plain' && values.state !== 'codec') throw new Error('--state must be plain or codec');
const responseMode = values['response-mode'];
if (responseMode !== 'json' && responseMode !== 'auto') throw new Error('--response-mode must be json or auto');
const TOOL_GROUPS = ['echo', 'confirm', 'wizard', 'lookup', 'length', 'resource', 'many'] as const;
const tools = new Set(values.tools.split(','));
for (const tool of tools) if (!(TOOL_GROUPS as readonly string[]).includes(tool)) throw new Error(`--tools: unknown tool '${tool}' (one of ${TOOL_GROUPS.join(', ')})`);

/** What the MRTR tools keep between rounds; `reservation` is the result of the `once` step. */
interface FlowState {
  step: 1 | 2;
  tool: string;
  args: string;
  name?: string;
  reservation?: string;
}

/** How a flow's state goes out in `requestState` and comes back. */
interface FlowStateCodec {
  mint(state: FlowState, ctx: ServerContext): Promise<string> | string;
  /** The state of this round, undefined on a first round; throws when it does not belong to this call. */
  read(ctx: ServerContext, tool: string, args: unknown): FlowState | undefined;
}

const plainJson: FlowStateCodec = {
  mint: (state) => JSON.stringify(state),
  read(ctx) {
    const raw = ctx.mcpReq.requestState<string>();
    return raw === undefined ? undefined : (JSON.parse(raw) as FlowState);
  },
};

const codec = createRequestStateCodec<FlowState>({ key: randomBytes(32), ...(values.bind ? { bind: (ctx: ServerContext) => ctx.mcpReq.method } : {}) });
const signedJson: FlowStateCodec = {
  mint: (state, ctx) => codec.mint(state, ctx),
  read(ctx, tool, args) {
    // The seam has already verified the MAC and expiry (and the method with --bind); the rest is the author's job.
    const state = ctx.mcpReq.requestState<FlowState>();
    if (state !== undefined && (state.tool !== tool || state.args !== JSON.stringify(args))) {
      throw new Error('requestState was issued for another call');
    }
    return state;
  },
};

const flowState = values.state === 'codec' ? signedJson : plainJson;
const reservations = makeReservations();

function text(value: string, isError = false): CallToolResult {
  return isError ? { content: [{ type: 'text', text: value }], isError: true } : { content: [{ type: 'text', text: value }] };
}

type ToolOutcome = CallToolResult | InputRequiredResult;

async function confirm(args: z.infer<typeof ConfirmInput>, ctx: ServerContext): Promise<ToolOutcome> {
  const state = flowState.read(ctx, CONFIRM_TOOL, args);
  const answer = state && acceptedContent(ctx.mcpReq.inputResponses, CONFIRM_KEY, ApproveAnswer);
  if (!answer) {
    return inputRequired({
      inputRequests: { [CONFIRM_KEY]: inputRequired.elicit({ message: confirmMessage(args.item), requestedSchema: ApproveAnswer }) },
      requestState: await flowState.mint({ step: 1, tool: CONFIRM_TOOL, args: JSON.stringify(args) }, ctx),
    });
  }
  return text(answer.approve ? confirmedText(args.item) : declinedText(args.item));
}

async function wizard(args: z.infer<typeof WizardInput>, ctx: ServerContext): Promise<ToolOutcome> {
  const base = { tool: WIZARD_TOOL, args: JSON.stringify(args) };
  const askName = async (): Promise<ToolOutcome> =>
    inputRequired({
      inputRequests: { [WIZARD_NAME_KEY]: inputRequired.elicit({ message: WIZARD_NAME_MESSAGE, requestedSchema: NameAnswer }) },
      requestState: await flowState.mint({ step: 1, ...base }, ctx),
    });
  const state = flowState.read(ctx, WIZARD_TOOL, args);
  if (state === undefined) return askName();
  if (state.step === 1) {
    const who = acceptedContent(ctx.mcpReq.inputResponses, WIZARD_NAME_KEY, NameAnswer);
    if (!who) return askName();
    // The `once` step by hand: run the side effect now and carry its result in the state.
    const reservation = reservations.reserve(args.order);
    return inputRequired({
      inputRequests: { [WIZARD_COLOR_KEY]: inputRequired.elicit({ message: WIZARD_COLOR_MESSAGE, requestedSchema: ColorAnswer }) },
      requestState: await flowState.mint({ step: 2, ...base, name: who.name, reservation }, ctx),
    });
  }
  const colour = acceptedContent(ctx.mcpReq.inputResponses, WIZARD_COLOR_KEY, ColorAnswer);
  if (!colour || state.name === undefined || state.reservation === undefined) return text('color: missing', true);
  return text(wizardText(args.order, state.name, colour.color, state.reservation));
}

function makeServer(): McpServer {
  const server = new McpServer(
    { name: 'official-bench', version: SERVER_VERSION },
    { capabilities: tools.has('resource') ? { tools: {}, resources: {} } : { tools: {} }, ...(values.state === 'codec' ? { requestState: { verify: codec.verify } } : {}) },
  );
  if (tools.has('echo')) server.registerTool(ECHO_TOOL, { description: 'Returns its text', inputSchema: EchoInput }, ({ text: value }) => text(value));
  if (tools.has('confirm')) server.registerTool(CONFIRM_TOOL, { description: 'Asks for approval once, then answers', inputSchema: ConfirmInput }, confirm);
  if (tools.has('wizard')) server.registerTool(WIZARD_TOOL, { description: 'Asks a name, reserves once, asks a colour', inputSchema: WizardInput }, wizard);
  if (tools.has('lookup')) for (const filler of FILLER_TOOLS) {
    server.registerTool(filler.name, { description: filler.description, inputSchema: FillerInput }, ({ query }) =>
      text(`No records match ${query}.`),
    );
  }
  if (tools.has('many')) for (const filler of EXTRA_FILLER_TOOLS) {
    server.registerTool(filler.name, { description: filler.description, inputSchema: FillerInput }, ({ query }) =>
      text(`No records match ${query}.`),
    );
  }
  if (tools.has('length')) server.registerTool(LENGTH_TOOL, { description: 'Returns the length of its data', inputSchema: LengthInput }, ({ data }) => text(String(data.length)));
  if (tools.has('resource')) {
    server.registerResource(BIG_RESOURCE_NAME, BIG_RESOURCE_URI, { mimeType: 'text/plain' }, (uri) => ({
      contents: [{ uri: uri.href, mimeType: 'text/plain', text: BIG_RESOURCE_TEXT }],
    }));
  }
  return server;
}

/** The SDK's bearer middleware in front of the handler, with a JWT verifier an app would write on jose. */
function bearerGated(handler: McpHttpHandler, resource: string): { fetch(request: Request): Promise<Response> } {
  const issuer = process.env[ISSUER_ENV];
  if (!issuer) throw new Error(`--auth needs ${ISSUER_ENV}`);
  const keys = createRemoteJWKSet(new URL(`${issuer}/jwks`));
  const verifier: OAuthTokenVerifier = {
    async verifyAccessToken(token) {
      const { payload } = await jwtVerify(token, keys, { issuer, audience: resource, typ: 'at+jwt', algorithms: ['ES256'] });
      return {
        token,
        clientId: String(payload.client_id),
        scopes: String(payload.scope ?? '').split(' '),
        expiresAt: payload.exp,
        resource: new URL(resource),
      };
    },
  };
  const gate = requireBearerAuth({ verifier, requiredScopes: [BENCH_SCOPE], expectedResource: new URL(resource), resourceMetadataUrl: `${new URL(resource).origin}/.well-known/oauth-protected-resource/mcp` });
  return {
    fetch: async (request) => {
      const authInfo = await gate(request);
      return authInfo instanceof Response ? authInfo : handler.fetch(request, { authInfo });
    },
  };
}

const onerror = (error: Error): void => {
  process.stderr.write(`[official-bench] ${error.message}\n`);
};

if (values.stdio) {
  serveStdio(() => makeServer(), { legacy: 'reject', onerror });
} else {
  const maxSubscriptions = values['max-subscriptions'] === undefined ? {} : { maxSubscriptions: Number(values['max-subscriptions']) };
  const handler = createMcpHandler(() => makeServer(), { legacy: 'reject', responseMode, onerror, ...maxSubscriptions });
  const server = createServer();
  server.keepAliveTimeout = Number(values['keep-alive-ms']); // 65 s by default, as Tessera's serveHttp: the load generator's connections stay open
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  server.on('request', nodeListener(values.auth ? bearerGated(handler, url) : handler, 'official-bench'));
  await announceListening(
    url,
    async () => {
      await handler.close();
      server.closeAllConnections();
      server.close();
    },
    () => ({ reservations: reservations.count }),
  );
}
