/** JSON-RPC and MCP error codes, and the error value the whole project throws. */

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** 2025-11-25 only: a resource that does not exist (2026-07-28 uses -32602). */
  ResourceNotFound: -32002,
  /** 2025-11-25 only: URL elicitation required (2026-07-28 removed it: a URL ask is an input round). */
  UrlElicitationRequired: -32042,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The wire shape of `error` in a JSON-RPC error response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * Failures whose transport-level answer the code alone does not decide (on
 * Streamable HTTP: 400 for a malformed request, 404 for an unknown session,
 * 503 when the server is full). The HTTP edge maps them (transport/http/status.ts).
 */
export type ErrorCondition = 'malformed' | 'unknown-session' | 'overloaded' | 'limited';

/**
 * An error that becomes a JSON-RPC error response. `code` and `data` go on the
 * wire as they are; the message should be one concise sentence that is safe to
 * show a client (never a stack trace or a secret).
 */
export class McpError extends Error {
  readonly code: number;
  readonly data: unknown;
  readonly condition: ErrorCondition | undefined;

  constructor(code: number, message: string, data?: unknown, condition?: ErrorCondition) {
    super(message);
    this.name = 'McpError';
    this.code = code;
    this.data = data;
    this.condition = condition;
  }

  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  static parseError(message = 'Parse error: the body is not valid JSON'): McpError {
    return new McpError(ErrorCode.ParseError, message);
  }
  static invalidRequest(message: string): McpError {
    return new McpError(ErrorCode.InvalidRequest, message);
  }
  static methodNotFound(method: string): McpError {
    return new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  }
  static invalidParams(message: string, data?: unknown): McpError {
    return new McpError(ErrorCode.InvalidParams, message, data);
  }
  /** A request missing a field the spec requires: -32602, and HTTP 400. */
  static malformed(message: string, data?: unknown): McpError {
    return new McpError(ErrorCode.InvalidParams, message, data, 'malformed');
  }
  static internal(message = 'Internal error'): McpError {
    return new McpError(ErrorCode.InternalError, message);
  }
  static headerMismatch(message: string): McpError {
    return new McpError(ErrorCode.HeaderMismatch, message);
  }
  static missingCapability(message: string, requiredCapabilities: object): McpError {
    return new McpError(ErrorCode.MissingRequiredClientCapability, message, { requiredCapabilities });
  }
  static unsupportedVersion(requested: string, supported: readonly string[]): McpError {
    return new McpError(ErrorCode.UnsupportedProtocolVersion, `Unsupported protocol version: ${requested}`, {
      supported: [...supported],
      requested,
    });
  }
  /**
   * A limit was reached: the server's own (`scope: 'server'`, HTTP 503) or the
   * caller's share of it (`'caller'`, HTTP 429). The same answer everywhere:
   * the message and `data` name the limit, and `retryAfterSeconds` travels as
   * Retry-After on HTTP.
   */
  static limitReached(what: string, limit: { option: string; max: number; scope: 'server' | 'caller'; retryAfterSeconds: number }): McpError {
    const whose = limit.scope === 'caller' ? 'for this caller' : 'on this server';
    return new McpError(
      ErrorCode.InternalError,
      `Too many ${what} ${whose}: the limit is ${limit.max} (${limit.option}); try again later`,
      { limit: limit.option, max: limit.max, retryAfterSeconds: limit.retryAfterSeconds },
      limit.scope === 'caller' ? 'limited' : 'overloaded',
    );
  }
  /** Something the server needs (a shared store) cannot be reached now: HTTP 503 with Retry-After. */
  static unavailable(what: string, retryAfterSeconds = 2): McpError {
    return new McpError(ErrorCode.InternalError, `Server busy: ${what} cannot be reached; try again shortly`, { retryAfterSeconds }, 'overloaded');
  }

  /** A 2025-11-25 request names a session this instance does not have: HTTP 404, so the client initializes again. */
  static unknownSession(sessionId: string): McpError {
    return new McpError(
      ErrorCode.InvalidRequest,
      `Session not found: ${sessionId} is not a session of this server instance (it ended, or another instance made it; ` +
        '2025-era sessions need sticky routing, 2026-07-28 requests do not). Initialize again.',
      undefined,
      'unknown-session',
    );
  }
}

/** Codes a 2026-07-28 implementation must never send: -32002/-32042 (removed) and the reserved range beyond the three the spec defines. */
export function isReservedErrorCode(code: number): boolean {
  if (code === ErrorCode.ResourceNotFound || code === ErrorCode.UrlElicitationRequired) return true;
  return (
    code <= -32020 &&
    code >= -32099 &&
    code !== ErrorCode.HeaderMismatch &&
    code !== ErrorCode.MissingRequiredClientCapability &&
    code !== ErrorCode.UnsupportedProtocolVersion
  );
}
