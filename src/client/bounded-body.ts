/**
 * Reading a JSON body with a size limit, counted on the bytes fetch hands
 * over (after any Content-Encoding is undone, so a small gzip body cannot
 * inflate past it), and stopping the download the moment the limit is
 * passed. A body cut short or reset is a TransportError with the cause.
 */

import { ResponseTooLargeError, TransportError } from './errors.js';

export async function readBodyText(response: Response, maxBytes: number, from: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  const encoded = (response.headers.get('content-encoding') ?? 'identity').toLowerCase() !== 'identity';
  // An uncompressed body that says up front it is too large is refused before any of it is read.
  if (!encoded && Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw tooLarge(from, maxBytes);
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
        throw new TransportError(`The response from ${from} was cut short: ${describe(cause)}`, response.status, undefined, { cause });
      }
      if (chunk.done) return text + decoder.decode();
      received += chunk.value.byteLength;
      if (received > maxBytes) throw tooLarge(from, maxBytes);
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

function tooLarge(from: string, maxBytes: number): ResponseTooLargeError {
  return new ResponseTooLargeError(`The response from ${from} is larger than maxResponseBytes (${maxBytes} bytes); stopped reading it`, maxBytes);
}

/** fetch's own errors say little ("terminated"); the socket's reason is in their cause. */
export function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: string; message?: string } | undefined;
  const detail = cause?.code ?? cause?.message;
  return detail && !error.message.includes(detail) ? `${error.message} (${detail})` : error.message;
}
