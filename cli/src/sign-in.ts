/**
 * Signing in from the command line when an HTTP server asks (401): the
 * authorization URL is printed (and opened with --open), the redirect is
 * caught on 127.0.0.1, tokens go to a 0600 file under the config directory
 * and are reused and refreshed next time. With --client-credentials a script
 * signs in as itself instead, no browser involved.
 */

import {
  AuthorizationError,
  canonicalResource,
  clientCredentials,
  OAuthProvider,
  type OAuthProviderOptions,
  type PreRegisteredClient,
  type UserAuthorization,
} from 'tessera-mcp/client';
import { FileTokenStore, LoopbackRedirect, TokenFileError } from 'tessera-mcp/node';
import { tokenFile } from './config-dir.js';
import { CliError, UsageError } from './errors.js';
import { openBrowser } from './open-browser.js';

export interface SignInOptions {
  clientId?: string;
  clientSecret?: string;
  /** Space- or comma-separated scopes. */
  scope?: string;
  /** Sign in as the client itself (client credentials grant). */
  clientCredentials?: boolean;
  /** Open the authorization URL in a browser. */
  open?: boolean;
  /** The loopback port for the redirect (default: any free port). */
  redirectPort?: number;
}

export interface CliSignIn {
  provider: OAuthProvider;
  /** Stops the redirect listener. */
  close(): Promise<void>;
}

/** Whether a person can follow an authorization URL here. */
function interactive(): boolean {
  return process.stderr.isTTY === true || process.stdin.isTTY === true;
}

export function createSignIn(serverUrl: string, options: SignInOptions): CliSignIn {
  if (options.clientSecret !== undefined && options.clientId === undefined) throw new UsageError('--client-secret needs --client-id');
  if (options.clientCredentials && options.clientId === undefined) {
    throw new UsageError('--client-credentials needs --client-id and --client-secret (or TESSERA_CLIENT_SECRET)');
  }
  const port = options.redirectPort;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port < 65536)) throw new UsageError('--redirect-port must be a port number');
  const client: PreRegisteredClient | undefined =
    options.clientId === undefined ? undefined : { clientId: options.clientId, ...(options.clientSecret !== undefined ? { clientSecret: options.clientSecret } : {}) };
  const scopes = options.scope?.split(/[\s,]+/).filter(Boolean);
  const redirect = new LoopbackRedirect({
    ...(port !== undefined ? { port } : {}),
    show: (url) => {
      process.stderr.write(`\nSign in to ${serverUrl}: open this URL in a browser${options.open ? ' (opening it now)' : ''}:\n\n  ${url.href}\n\nWaiting for the sign-in to finish…\n`);
      if (options.open) openBrowser(url.href);
    },
  });
  // Asked for before anything is registered, so a run without a terminal stops at once.
  const signIn: UserAuthorization = {
    redirectUri: (registered) => {
      if (!interactive()) {
        throw new AuthorizationError(
          `${serverUrl} requires signing in, and there is no terminal to do it in (sign in once in a terminal, or use --client-credentials)`,
          { step: 'challenge' },
        );
      }
      return redirect.redirectUri(registered);
    },
    authorize: (request) => redirect.authorize(request),
  };
  const providerOptions: OAuthProviderOptions = {
    store: new FileTokenStore(tokenFile()),
    clientMetadata: { client_name: 'Tessera CLI', application_type: 'native' },
    ...(client ? { client } : {}),
    ...(scopes && scopes.length > 0 ? { scopes } : {}),
    ...(options.clientCredentials ? { grant: clientCredentials() } : { signIn }),
  };
  return { provider: new OAuthProvider(providerOptions), close: () => redirect.close() };
}

/** `tessera logout <url>`: forgets the stored sign-in for a server. */
export async function signOut(serverUrl: string): Promise<boolean> {
  const store = new FileTokenStore(tokenFile());
  const key = canonicalResource(serverUrl);
  try {
    const known = (await store.get(key)) !== undefined;
    if (known) await store.delete(key);
    return known;
  } catch (error) {
    throw tokenFileRefusal(error) ?? error;
  }
}

/** A token file that cannot be used safely: its message (the path, and what to do) as the one line to print. */
export function tokenFileRefusal(error: unknown): CliError | undefined {
  return error instanceof TokenFileError ? new CliError(error.message) : undefined;
}

/** One line for the person: what failed and what to do about it. */
export function describeAuthorizationError(serverUrl: string, error: AuthorizationError): string {
  const code = error.error ? ` (${error.error})` : '';
  switch (error.step) {
    case 'authorization':
      return error.error === 'access_denied'
        ? `Signing in to ${serverUrl} was refused${code}. Run the command again to retry.`
        : `Signing in to ${serverUrl} failed: ${error.message}. Run the command again to retry.`;
    case 'client-registration':
      return `${error.message}. Give --client-id (and --client-secret) registered with the server's authorization server.`;
    case 'resource':
      return `${serverUrl} does not accept your sign-in${code}. Run tessera logout ${serverUrl} and try again.`;
    case 'step-up':
      return `${serverUrl} needs permissions your sign-in does not grant${code}: ${error.message}. Ask for them with --scope, or ask the server's operator.`;
    case 'token':
    case 'refresh':
      return `Signing in to ${serverUrl} failed: ${error.message}. Run tessera logout ${serverUrl} and try again.`;
    default:
      return `Cannot sign in to ${serverUrl}: ${error.message.replace(/\.$/, '')}.`;
  }
}
