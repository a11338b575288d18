/**
 * Errors the client raises itself. They carry no JSON-RPC code, so they cannot
 * be mistaken for an error the server sent (those arrive as `McpError`).
 */

export class ClientError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ClientError';
  }
}

/** The server answered something the protocol does not allow (an unknown resultType, a malformed input request…). */
export class ProtocolViolationError extends ClientError {
  constructor(
    message: string,
    readonly response?: unknown,
  ) {
    super(message);
    this.name = 'ProtocolViolationError';
  }
}

/** The transport failed: connection refused, a non-MCP HTTP reply, a stream that broke, a process that exited. */
export class TransportError extends ClientError {
  constructor(
    message: string,
    readonly status?: number,
    readonly body?: string,
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/** A request or a multi-round flow ran out of time. */
export class RequestTimeoutError extends ClientError {
  constructor(message: string) {
    super(message);
    this.name = 'RequestTimeoutError';
  }
}

/** A multi-round flow hit its round limit, or `onRound` refused to go on. */
export class InputFlowError extends ClientError {
  constructor(
    message: string,
    readonly rounds: number,
  ) {
    super(message);
    this.name = 'InputFlowError';
  }
}
