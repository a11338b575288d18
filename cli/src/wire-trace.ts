/**
 * `tessera call|list|read|prompt --trace`: every JSON-RPC message the client
 * sends (`→`) and receives (`←`) on stderr, one a line, as the README's "On
 * the wire" shows. A wrapper of the HTTP transport's fetch: request bodies as
 * sent, JSON replies as received, SSE replies event by event (read from a
 * copy of the stream, so the client reads its own undisturbed).
 */

import { inertJson, inertLine } from './inert-text.js';

/** The trace line of a JSON text (compacted, so one message is one line). */
function line(arrow: '→' | '←', text: string): string {
  try {
    return `${arrow} ${inertJson(JSON.parse(text))}`;
  } catch {
    return `${arrow} ${inertLine(text)}`;
  }
}

/** Writes the `data` of each SSE event of `body` as it arrives. */
async function traceEvents(body: ReadableStream<Uint8Array>, write: (line: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let pending = '';
  let data: string[] = [];
  const reader = body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    pending += decoder.decode(value, { stream: true });
    const lines = pending.split(/\r\n|\r|\n/);
    pending = lines.pop() ?? '';
    for (const text of lines) {
      if (text === '') {
        // A priming event (an id, empty data) or a keep-alive carries no message: nothing to print.
        const message = data.join('\n');
        if (message.trim() !== '') write(line('←', message));
        data = [];
      } else if (text.startsWith('data:')) data.push(text.slice(text.startsWith('data: ') ? 6 : 5));
    }
  }
}

export function tracingFetch(write: (line: string) => void, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    if (typeof init?.body === 'string' && init.body !== '') write(line('→', init.body));
    const response = await base(input, init);
    const type = response.headers.get('content-type') ?? '';
    if (response.body && type.includes('text/event-stream')) {
      void traceEvents(response.clone().body!, write).catch(() => undefined);
    } else if (response.body && type.includes('json')) {
      const text = await response.clone().text();
      if (text !== '') write(line('←', text));
    }
    return response;
  };
}
