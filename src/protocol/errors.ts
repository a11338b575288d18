/** JSON-RPC and MCP 2026-07-28 error codes, and the error value the whole project throws. */

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
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
 * An error that becomes a JSON-RPC error response. `code` and `data` go on the
 * wire as they are; the message should be one concise sentence that is safe to
 * show a client (never a stack trace or a secret).
 */
export class McpError extends Error {
  readonly code: number;
  readonly data: unknown;
  /** Set when the spec fixes the HTTP status of this particular failure (e.g. 400 for a missing `_meta` field). */
  readonly httpStatus: number | undefined;

  constructor(code: number, message: string, data?: unknown, httpStatus?: number) {
    super(message);
    this.name = 'McpError';
    this.code = code;
    this.data = data;
    this.httpStatus = httpStatus;
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
  /** A request missing a field the spec requires: -32602 on HTTP status 400. */
  static malformed(message: string, data?: unknown): McpError {
    return new McpError(ErrorCode.InvalidParams, message, data, 400);
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
}

/**
 * The HTTP status an error response travels with on Streamable HTTP. The spec
 * mandates 404 for -32601 and 400 for -32020/-32021/-32022 and for malformed
 * requests; other errors raised by handlers ride on 200 so that a dual-era
 * client does not mistake them for a legacy server's rejection.
 */
export function httpStatusForError(error: { code: number; httpStatus?: number | undefined }): number {
  if (error.httpStatus !== undefined) return error.httpStatus;
  switch (error.code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400;
    default:
      return 200;
  }
}

/** Codes a 2026-07-28 implementation must never send: -32002/-32042 (removed) and the reserved range beyond the three the spec defines. */
export function isReservedErrorCode(code: number): boolean {
  if (code === -32002 || code === -32042) return true;
  return code <= -32020 && code >= -32099 && code !== ErrorCode.HeaderMismatch && code !== ErrorCode.MissingRequiredClientCapability && code !== ErrorCode.UnsupportedProtocolVersion;
}
