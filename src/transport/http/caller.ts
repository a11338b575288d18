/**
 * Who calls, for one HTTP request — POST, GET and DELETE alike, each on its
 * own: first the `auth` option (a protected resource: token, DPoP proof,
 * scopes, with its 400/401/403 challenges), then the `authenticate` hook, the
 * low-level escape hatch, which sees the verified caller and may refuse
 * (throw `HttpError`) or name the principal itself.
 */

import type { AuthInfo, EndpointAuthorization } from '../../protocol/authorization.js';
import { HttpError } from './http-error.js';

/**
 * Establishes the caller from request headers (e.g. a bearer token). Return
 * the principal, `undefined` for anonymous (or, with `auth`, to keep the
 * token's principal), or throw `HttpError` (401/403) to refuse. `auth` is the
 * verified token's caller when the transport has the `auth` option.
 */
export type AuthenticateHook = (
  header: (name: string) => string | undefined,
  auth: AuthInfo | undefined,
) => string | undefined | Promise<string | undefined>;

export interface Caller {
  readonly principal: string | undefined;
  readonly auth: AuthInfo | undefined;
}

export interface CallerRefusal {
  readonly refused: true;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly message: string;
}

/** The parts of a request the caller is established from. */
export interface CallerRequest {
  readonly method: string;
  header(name: string): string | undefined;
  /** Path and query, as received. */
  readonly target: string;
}

const ANONYMOUS: Caller = Object.freeze({ principal: undefined, auth: undefined });
const NO_SCOPES: readonly string[] = Object.freeze([]);

export class CallerCheck {
  constructor(
    private readonly authorization: EndpointAuthorization | undefined,
    private readonly hook: AuthenticateHook | undefined,
  ) {}

  /** The caller of `request`, whose operation needs `scopes`; or why it is refused. Rejects only when the hook throws something other than HttpError. */
  async establish(request: CallerRequest, scopes: readonly string[] = NO_SCOPES): Promise<Caller | CallerRefusal> {
    let caller = ANONYMOUS;
    if (this.authorization) {
      const verdict = await this.authorization.authorize({ method: request.method, header: (name) => request.header(name), target: request.target, scopes });
      if (!verdict.ok) return { refused: true, status: verdict.status, headers: verdict.headers, message: verdict.message };
      caller = verdict;
    }
    if (!this.hook) return caller;
    try {
      const principal = await this.hook((name) => request.header(name), caller.auth);
      return principal === undefined ? caller : { principal, auth: caller.auth };
    } catch (error) {
      if (error instanceof HttpError) return { refused: true, status: error.status, headers: error.headers, message: error.message };
      throw error;
    }
  }
}

export function isRefusal(outcome: Caller | CallerRefusal): outcome is CallerRefusal {
  return 'refused' in outcome;
}
