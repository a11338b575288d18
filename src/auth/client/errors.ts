/**
 * The one error the client's authorization raises. It names the step of the
 * flow that failed and, when an authorization server or the MCP server said
 * why, the OAuth `error` code (RFC 6749 §5.2, RFC 6750 §3.1) and its
 * description — so an app can tell "the user said no" from "the server is
 * misconfigured" without parsing messages.
 *
 * It deliberately does not extend the client's own error classes: a failed
 * sign-in is never a reason to retry with another protocol era.
 */

/** Where in the flow an authorization attempt failed. */
export type AuthorizationStep =
  /** The MCP server's 401/403 challenge could not be used (no usable `WWW-Authenticate`). */
  | 'challenge'
  /** Protected Resource Metadata (RFC 9728): not found, malformed, or for another resource. */
  | 'resource-metadata'
  /** Authorization server metadata (RFC 8414 / OIDC): not found, wrong `issuer`, no PKCE S256. */
  | 'authorization-server-metadata'
  /** No client identity: nothing pre-registered, no CIMD support, registration refused. */
  | 'client-registration'
  /** The user (or the authorization server) refused or failed the authorization request. */
  | 'authorization'
  /** The redirect back could not be trusted (`state`, RFC 9207 `iss`) or never came. */
  | 'authorization-response'
  /** The token endpoint refused a grant. */
  | 'token'
  /** A refresh token was refused (the next request signs in again). */
  | 'refresh'
  /** The server keeps asking for more scope than re-authorizing obtains. */
  | 'step-up'
  /** The MCP server still refuses the freshly obtained token. */
  | 'resource';

export interface AuthorizationErrorDetails {
  step: AuthorizationStep;
  /** The OAuth `error` code, when a server sent one (`access_denied`, `invalid_grant`, `insufficient_scope`…). */
  error?: string;
  /** The server's `error_description`, when it sent one (never shown for an untrusted redirect). */
  description?: string;
  /** The HTTP status of the response that failed, when there was one. */
  status?: number;
  cause?: unknown;
}

export class AuthorizationError extends Error {
  readonly step: AuthorizationStep;
  readonly error: string | undefined;
  readonly description: string | undefined;
  readonly status: number | undefined;

  constructor(message: string, details: AuthorizationErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'AuthorizationError';
    this.step = details.step;
    this.error = details.error;
    this.description = details.description;
    this.status = details.status;
  }
}
