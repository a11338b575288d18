/**
 * One endpoint's authorization, asked about every HTTP request on its own
 * (there is no session to remember a caller by, and `initialize` is gone):
 *
 * 1. no token in the query string (400);
 * 2. the `Authorization` header: none → 401 (or anonymous, when allowed and
 *    nothing asked for needs a scope); broken → 400;
 * 3. the verifier's claims, then the checks every token passes: trusted
 *    issuer, this resource as audience (once per claim set the verifier
 *    hands out), not expired or not yet valid (every time; 401 `invalid_token`);
 * 4. DPoP: a bound token only with a good proof, a proof only with a bound
 *    token (401 `invalid_dpop_proof` / `invalid_token`);
 * 5. scopes: every scope the operation needs, after the hierarchy (403
 *    `insufficient_scope` listing all of them);
 * 6. the caller: `AuthInfo` and the principal bound into state, tasks and sessions.
 */

import type { AuthInfo, AuthorizationRefusal, ProtectedRequest, Authorized, EndpointAuthorization } from '../../protocol/authorization.js';
import { hasQueryToken, readCredentials } from './authorization-header.js';
import { challengeRefusal, unavailableRefusal, type Challenge, type ChallengeSettings } from './challenge.js';
import { checkDpopProof, type ProofRules } from './dpop-proof.js';
import { InvalidDpopProofError, InvalidTokenError, TokenCheckUnavailableError } from './errors.js';
import { principalOf } from './principal.js';
import { unionOf, type ScopeHierarchy } from './scopes.js';
import { authInfoOf, checkAudience, checkLifetime } from './token-claims.js';
import type { TokenVerifier, VerifyContext } from './token-verifier.js';

/** Where the resource server reports what no client may see (why a token could not be checked). */
export interface AuthLogger {
  warn(message: string, detail?: unknown): void;
}

export interface GuardSettings {
  resource: string;
  metadataPaths: readonly string[];
  metadata: Readonly<Record<string, unknown>>;
  challenges: ChallengeSettings;
  verifier: TokenVerifier;
  context: VerifyContext;
  acceptedAudiences: ReadonlySet<string>;
  scopes: readonly string[];
  hierarchy: ScopeHierarchy;
  allowAnonymous: boolean;
  dpopRequired: boolean;
  proofRules: ProofRules;
  logger: AuthLogger;
}

const ANONYMOUS: Authorized = Object.freeze({ ok: true, auth: undefined, principal: undefined });

interface Caller {
  auth: AuthInfo;
  principal: string;
}

export class RequestGuard implements EndpointAuthorization {
  readonly resource: string;
  /** The caller each verified claim set describes, made once per claim set (the verifier's cache keeps the same object). */
  private readonly callers = new WeakMap<object, Caller>();

  constructor(private readonly settings: GuardSettings) {
    this.resource = settings.resource;
  }

  metadataAt(path: string): Readonly<Record<string, unknown>> | undefined {
    return this.settings.metadataPaths.includes(path) ? this.settings.metadata : undefined;
  }

  private refuse(challenge: Challenge, explanation?: string): AuthorizationRefusal {
    return challengeRefusal(challenge, this.settings.challenges, explanation);
  }

  async authorize(request: ProtectedRequest): Promise<Authorized | AuthorizationRefusal> {
    const { settings } = this;
    const plain = settings.dpopRequired ? 'DPoP' : 'Bearer';
    if (hasQueryToken(request.target)) {
      return this.refuse({ scheme: plain, error: 'invalid_request', description: 'Access tokens are taken from the Authorization header only, never from the query string' });
    }
    const needed = unionOf(settings.scopes, request.scopes);
    const credentials = readCredentials(request.header('authorization'));
    if (credentials.kind === 'malformed') return this.refuse({ scheme: plain, error: 'invalid_request', description: credentials.reason });
    if (credentials.kind !== 'token') {
      if (settings.allowAnonymous && needed.length === 0) return ANONYMOUS;
      // No error code when no credentials came (RFC 6750 §3.1): the client may not know it needs any.
      return this.refuse({ scheme: plain, scopes: needed }, 'this server needs an access token (see WWW-Authenticate)');
    }
    const scheme = credentials.scheme === 'dpop' ? 'DPoP' : 'Bearer';

    let caller: Caller;
    try {
      const claims = await settings.verifier.verify(credentials.token, settings.context);
      caller = this.callerOf(claims);
      checkLifetime(claims, settings.context);
    } catch (error) {
      if (error instanceof InvalidTokenError) return this.refuse({ scheme, error: 'invalid_token', description: error.message, scopes: needed });
      settings.logger.warn(`Could not check an access token for ${this.resource}`, error);
      return unavailableRefusal(error instanceof TokenCheckUnavailableError ? error.retryAfterSeconds : undefined);
    }

    const bound = caller.auth.keyThumbprint;
    if (bound !== undefined) {
      if (credentials.scheme !== 'dpop') {
        return this.refuse({ scheme: 'DPoP', error: 'invalid_token', description: 'This access token is DPoP-bound: send it with the DPoP scheme and a proof', scopes: needed });
      }
      try {
        await checkDpopProof(
          { proof: request.header('dpop'), token: credentials.token, keyThumbprint: bound, method: request.method, url: this.resource, now: settings.context.now() },
          settings.proofRules,
        );
      } catch (error) {
        if (error instanceof InvalidDpopProofError) return this.refuse({ scheme: 'DPoP', error: 'invalid_dpop_proof', description: error.message, scopes: needed });
        settings.logger.warn(`Could not check a DPoP proof for ${this.resource}`, error);
        return unavailableRefusal();
      }
    } else if (credentials.scheme === 'dpop') {
      return this.refuse({ scheme: 'DPoP', error: 'invalid_token', description: 'This access token is not DPoP-bound: send it with the Bearer scheme', scopes: needed });
    } else if (settings.dpopRequired) {
      return this.refuse({ scheme: 'DPoP', error: 'invalid_token', description: 'This server accepts DPoP-bound access tokens only', scopes: needed });
    }

    if (!settings.hierarchy.covers(caller.auth.scopes, needed)) {
      const description = `This operation needs the scope${needed.length === 1 ? '' : 's'} ${needed.join(' ')}`;
      return this.refuse({ scheme, error: 'insufficient_scope', description, scopes: needed });
    }
    return { ok: true, auth: caller.auth, principal: caller.principal };
  }

  /** The caller of claims that passed the checks that never change for a token (made, and checked, once per claim set). */
  private callerOf(claims: Readonly<Record<string, unknown>>): Caller {
    let caller = this.callers.get(claims);
    if (!caller) {
      checkAudience(claims, this.settings.context, this.settings.acceptedAudiences);
      const auth = authInfoOf(claims);
      caller = { auth, principal: principalOf(auth) };
      this.callers.set(claims, caller);
    }
    return caller;
  }
}
