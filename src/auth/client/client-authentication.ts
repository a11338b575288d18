/**
 * How the client authenticates at the token endpoint (OAuth 2.1 §2.4):
 * `client_secret_basic`, `client_secret_post`, `none` (public clients) or
 * `private_key_jwt` (RFC 7523) — the one the registration says, else the best
 * the authorization server lists for the credentials at hand.
 */

import { importPKCS8 } from 'jose';
import * as oauth from 'oauth4webapi';
import { AuthorizationError } from './errors.js';
import type { PreRegisteredClient } from './client-identity.js';
import type { RegisteredClient } from './token-store.js';

export function chooseAuthMethod(as: oauth.AuthorizationServer, client: RegisteredClient, hasPrivateKey: boolean): string {
  if (client.tokenEndpointAuthMethod) return client.tokenEndpointAuthMethod;
  // RFC 8414 §2: absent means client_secret_basic.
  const supported = Array.isArray(as.token_endpoint_auth_methods_supported) ? as.token_endpoint_auth_methods_supported : ['client_secret_basic'];
  if (hasPrivateKey && supported.includes('private_key_jwt')) return 'private_key_jwt';
  if (client.clientSecret !== undefined) {
    if (supported.includes('client_secret_basic')) return 'client_secret_basic';
    if (supported.includes('client_secret_post')) return 'client_secret_post';
  }
  if (hasPrivateKey) return 'private_key_jwt';
  return 'none';
}

async function signingKey(pre: PreRegisteredClient | undefined): Promise<CryptoKey | undefined> {
  const key = pre?.privateKey;
  if (key === undefined || typeof key !== 'string') return key;
  try {
    return await importPKCS8(key, pre?.signingAlgorithm ?? 'ES256');
  } catch (error) {
    throw new AuthorizationError(`The client's private key could not be read as a PKCS#8 PEM: ${(error as Error).message}`, {
      step: 'token',
      cause: error,
    });
  }
}

/**
 * HTTP Basic with the client id and secret (RFC 6749 §2.3.1). Percent-encoded
 * as URI components: unreserved characters (`-`, `.`, `_`, `~`) stay as they
 * are, which servers that never decode (many do not) need, and servers that
 * do decode read the same value. (The library encodes even those, strictly.)
 */
export function clientSecretBasic(secret: string): oauth.ClientAuth {
  return (_as, client, _body, headers) => {
    const credentials = `${encodeURIComponent(client.client_id)}:${encodeURIComponent(secret)}`;
    headers.set('authorization', `Basic ${btoa(credentials)}`);
  };
}

/** The library's client-authentication strategy for this client. */
export async function clientAuthentication(
  as: oauth.AuthorizationServer,
  client: RegisteredClient,
  pre: PreRegisteredClient | undefined,
): Promise<oauth.ClientAuth> {
  const usePreKey = pre !== undefined && pre.clientId === client.clientId;
  const key = usePreKey ? await signingKey(pre) : undefined;
  const method = chooseAuthMethod(as, client, key !== undefined);
  const secret = client.clientSecret;
  switch (method) {
    case 'client_secret_basic':
    case 'client_secret_post':
      if (secret === undefined) throw new AuthorizationError(`${method} needs a client secret, and ${client.clientId} has none`, { step: 'token' });
      return method === 'client_secret_basic' ? clientSecretBasic(secret) : oauth.ClientSecretPost(secret);
    case 'private_key_jwt':
      if (key === undefined) throw new AuthorizationError(`private_key_jwt needs the client's private key`, { step: 'token' });
      return oauth.PrivateKeyJwt(key);
    case 'none':
      return oauth.None();
    default:
      throw new AuthorizationError(`Token endpoint auth method ${method} is not supported by this client`, { step: 'token' });
  }
}
