/**
 * An SSE reply stream that broke or ended before its response: what the
 * transport read of it (the last event id, the server's `retry`) decides how
 * the request is recovered (sent again in 2026-07-28, resumed in a 2025 session).
 */

export class StreamBroken extends Error {
  constructor(
    message: string,
    readonly lastEventId: string | undefined,
    readonly retryMs: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
