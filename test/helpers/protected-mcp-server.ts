/**
 * A protected MCP server for the client's authorization tests, on node:http
 * at 127.0.0.1: it serves Protected Resource Metadata (RFC 9728), checks each
 * request's bearer token with jose against the authorization server's JWKS
 * (issuer, audience = this server, expiry), answers 401 / 403
 * `insufficient_scope` challenges as the spec words them, and hands accepted
 * requests to a Tessera McpServer. Tessera's own protected server
 * (protected-tessera.ts) serves the tests that need no more; this one stays
 * for those that steer the server from outside (expire the tokens it has
 * seen, move it to another authorization server, any scope per method).
 */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { calculateJwkThumbprint, createRemoteJWKSet, decodeProtectedHeader, importJWK, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { createHash } from 'node:crypto';
import { McpServer } from '../../src/index.js';
import { createFetchHandler } from '../../src/fetch.js';
import { quietLogger } from './results.js';

export interface ProtectedServerOptions {
  /** The authorization server's issuer and JWKS (it can be changed later with `useAuthorizationServer`). */
  issuer: string;
  jwksUrl: string;
  /** The scope each method needs (default: tools/list mcp:read, tools/call mcp:read). */
  scopeFor?: (method: string) => string[];
  /** scopes_supported in the metadata. */
  scopesSupported?: string[];
  /** Require DPoP-bound tokens (RFC 9449 §7): the DPoP scheme and a valid proof for this request and token. */
  dpop?: boolean;
}

export interface ProtectedServerLog {
  /** Each request: its method, status, and the token's jti when one was presented. */
  requests: Array<{ method: string; status: number; jti?: string; authorization?: string; proofJti?: string }>;
}

export interface RunningProtectedServer {
  url: string;
  resource: string;
  log: ProtectedServerLog;
  /** Points the metadata (and token checks) at another authorization server. */
  useAuthorizationServer(issuer: string, jwksUrl: string): void;
  /** Treats every token seen so far as expired (as its lifetime would have). */
  expireTokensSeen(): void;
  close(): Promise<void>;
}

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'protected-test-server', version: '1.0.0' }, { logger: quietLogger() });
  server.tool('whoami', { description: 'Says hello.' }, async () => 'hello from a protected server');
  return server;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** RFC 9449 §4.3 and §7: a proof for this method and URL, for this token, signed by the key the token is bound to. */
async function checkProof(header: string | string[] | undefined, token: string, method: string, url: string, claims: JWTPayload): Promise<string> {
  if (typeof header !== 'string') throw new Error('no single DPoP proof');
  const { jwk, typ, alg } = decodeProtectedHeader(header);
  if (typ !== 'dpop+jwt' || !jwk || !alg || alg === 'none' || alg.startsWith('HS')) throw new Error('not a DPoP proof');
  const { payload } = await jwtVerify(header, await importJWK(jwk as JWK, alg), { maxTokenAge: '60s' });
  if (payload.htm !== method || payload.htu !== url) throw new Error('proof for another request');
  if (payload.ath !== createHash('sha256').update(token).digest('base64url')) throw new Error('proof for another token');
  const bound = (claims.cnf as { jkt?: string } | undefined)?.jkt;
  if (bound !== (await calculateJwkThumbprint(jwk as JWK))) throw new Error('token not bound to the proof key');
  return String(payload.jti);
}

export async function startProtectedServer(options: ProtectedServerOptions): Promise<RunningProtectedServer> {
  const scopeFor = options.scopeFor ?? (() => ['mcp:read']);
  const handler = createFetchHandler(mcpServer());
  const log: ProtectedServerLog = { requests: [] };
  const expired = new Set<string>();
  const seen = new Set<string>();
  let issuer = options.issuer;
  let jwks = createRemoteJWKSet(new URL(options.jwksUrl));

  const server: Server = createServer((req, res) => void route(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const resource = `${origin}/mcp`;
  const metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;

  function challenge(res: ServerResponse, status: 401 | 403, params: Record<string, string>): void {
    const fields = Object.entries({ ...(options.dpop ? { algs: 'ES256' } : {}), ...params, resource_metadata: metadataUrl }).map(([k, v]) => `${k}="${v}"`);
    res.writeHead(status, { 'www-authenticate': `${options.dpop ? 'DPoP' : 'Bearer'} ${fields.join(', ')}`, 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: params.error ?? 'unauthorized' }));
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', origin).pathname;
    if (req.method === 'GET' && path === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ resource, authorization_servers: [issuer], ...(options.scopesSupported ? { scopes_supported: options.scopesSupported } : {}) }));
      return;
    }
    if (path !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const body = await readBody(req);
    let method = req.method ?? 'GET';
    try {
      method = (JSON.parse(body.toString('utf8')) as { method?: string }).method ?? method;
    } catch {
      // not JSON-RPC: the MCP handler will say so
    }
    const needed = scopeFor(method);
    const authorization = req.headers.authorization;
    let proofJti: string | undefined;
    const record = (status: number, jti?: string): void => {
      log.requests.push({ method, status, ...(jti ? { jti } : {}), ...(authorization ? { authorization } : {}), ...(proofJti ? { proofJti } : {}) });
    };
    const scheme = options.dpop ? 'DPoP ' : 'Bearer ';
    if (!authorization?.startsWith(scheme)) {
      record(401);
      return challenge(res, 401, { scope: needed.join(' ') });
    }
    const token = authorization.slice(scheme.length);
    let claims: JWTPayload;
    try {
      ({ payload: claims } = await jwtVerify(token, jwks, { issuer, audience: resource }));
      if (options.dpop) proofJti = await checkProof(req.headers.dpop, token, req.method ?? 'POST', resource, claims);
    } catch (error) {
      record(401);
      return challenge(res, 401, { error: 'invalid_token', error_description: (error as Error).message.replace(/"/g, "'"), scope: needed.join(' ') });
    }
    const jti = String(claims.jti);
    seen.add(jti);
    if (expired.has(jti)) {
      record(401, jti);
      return challenge(res, 401, { error: 'invalid_token', error_description: 'The access token expired', scope: needed.join(' ') });
    }
    const granted = String(claims.scope ?? '').split(' ');
    if (!needed.every((scope) => granted.includes(scope))) {
      record(403, jti);
      return challenge(res, 403, { error: 'insufficient_scope', scope: needed.join(' ') });
    }
    record(200, jti);
    // Hand the request (body already read) to the MCP handler, and its answer back.
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
    const response = await handler(new Request(`${origin}${req.url ?? '/mcp'}`, { method: req.method, headers, ...(req.method === 'POST' ? { body: body.toString('utf8') } : {}) }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) for await (const chunk of response.body) res.write(chunk);
    res.end();
  }

  return {
    url: resource,
    resource,
    log,
    useAuthorizationServer(nextIssuer, jwksUrl) {
      issuer = nextIssuer;
      jwks = createRemoteJWKSet(new URL(jwksUrl));
    },
    expireTokensSeen() {
      for (const jti of seen) expired.add(jti);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
