/**
 * A stand-in authorization server for the JWT rows, in the load generator's
 * process: an ES256 key, its metadata (RFC 8414) and key set on 127.0.0.1,
 * and access tokens as an authorization server issues them (RFC 9068: `typ
 * at+jwt`, `iss`, `aud` = the server's URL, `sub`, `client_id`, `scope`,
 * an hour's `exp`). The servers fetch the key set once at their first token
 * and never ask again, so it costs nothing during the cells.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/** Where the servers learn the issuer (they are started after it, and inherit the environment). */
export const ISSUER_ENV = 'BENCH_AUTH_ISSUER';
/** The scope every request of the JWT rows needs, and the tokens carry. */
export const BENCH_SCOPE = 'mcp:read';

export interface TokenIssuer {
  url: string;
  /** A token for `resource` (the MCP endpoint it is meant for). */
  mint(resource: string): Promise<string>;
  close(): Promise<void>;
}

export async function startTokenIssuer(): Promise<TokenIssuer> {
  const { privateKey, publicKey } = await generateKeyPair('ES256');
  const jwks = { keys: [{ ...(await exportJWK(publicKey)), kid: 'bench-1', alg: 'ES256', use: 'sig' }] };
  let issuer = '';
  const server = createServer((req, res) => {
    const body =
      req.url === '/jwks'
        ? jwks
        : req.url === '/.well-known/oauth-authorization-server'
          ? { issuer, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token`, response_types_supported: ['code'] }
          : undefined;
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: issuer,
    mint: (resource) =>
      new SignJWT({ scope: BENCH_SCOPE, client_id: 'bench-client' })
        .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'bench-1' })
        .setIssuer(issuer)
        .setAudience(resource)
        .setSubject('bench-user')
        .setIssuedAt()
        .setExpirationTime('1h')
        .setJti(crypto.randomUUID())
        .sign(privateKey),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
