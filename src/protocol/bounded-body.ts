/**
 * Reading a response body with a size limit, counted on the bytes fetch hands
 * over (after any Content-Encoding is undone, so a small gzip body cannot
 * inflate past it), and stopping the download the moment the limit is
 * passed. Every side that reads what another party sends uses it: the
 * client's MCP replies, the resource server's documents (keys, metadata,
 * introspection), the sign-in's documents and token responses. Time is the
 * caller's to bound, through the signal it gave fetch (which also ends the
 * body).
 */

/** The body is longer than the limit: reading stopped there and the download was cancelled. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The body is larger than ${maxBytes} bytes; stopped reading it`);
    this.name = 'BodyTooLargeError';
  }
}

/** The body could not be read to its end (reset, aborted, timed out); the stream's error is the cause. */
export class BodyCutShortError extends Error {
  /** Why, in a few words (the socket's reason when there is one). */
  readonly reason: string;

  constructor(cause: unknown) {
    const reason = describeFailure(cause);
    super(`The body was cut short: ${reason}`, { cause });
    this.name = 'BodyCutShortError';
    this.reason = reason;
  }
}

/** The body as text, at most `maxBytes`; BodyTooLargeError past it, BodyCutShortError when the stream fails. */
export async function readBoundedText(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  const encoded = (response.headers.get('content-encoding') ?? 'identity').toLowerCase() !== 'identity';
  // An uncompressed body that says up front it is too large is refused before any of it is read.
  if (!encoded && Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new BodyTooLargeError(maxBytes);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let received = 0;
  let text = '';
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (cause) {
        throw new BodyCutShortError(cause);
      }
      if (chunk.done) return text + decoder.decode();
      received += chunk.value.byteLength;
      if (received > maxBytes) throw new BodyTooLargeError(maxBytes);
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** fetch's own errors say little ("terminated", "fetch failed"); the socket's reason is in their cause. */
export function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  const detail = cause?.code ?? cause?.message;
  return detail && !error.message.includes(detail) ? `${error.message} (${detail})` : error.message;
}
