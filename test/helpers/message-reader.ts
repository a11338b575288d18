/**
 * Reads the JSON-RPC messages of an HTTP response as they arrive: one JSON
 * body, or SSE events (empty priming events skipped), each validated as it
 * comes. Tests take messages in order or wait for one that matches.
 */

import { createParser } from 'eventsource-parser';

export class StreamEnded extends Error {}

/** One SSE event as received (a priming event has an id and empty data). */
export interface RawEvent {
  id: string | undefined;
  data: string;
}

export interface MessageReader<M> {
  /** Every message received so far, in order. */
  readonly messages: M[];
  /** Every SSE event received so far, priming events included (empty on a JSON body). */
  readonly events: RawEvent[];
  /** The first not-yet-taken message matching `predicate`, with the ones skipped over; rejects with StreamEnded if the body ends first. */
  waitFor(predicate: (m: M) => boolean): Promise<{ match: M; skipped: M[] }>;
  /** Settles when the body ends; then `failure` and `rawText` are final. */
  readonly done: Promise<void>;
  /** The first validation or read failure, if any. */
  failure(): unknown;
  /** The body, when it was not SSE and not JSON (or empty). */
  rawText(): string | undefined;
}

export function readMessages<M extends Record<string, unknown>>(res: Response, aborted: AbortSignal, validate: (m: M) => void): MessageReader<M> {
  const messages: M[] = [];
  const events: RawEvent[] = [];
  let taken = 0;
  let finished = false;
  let failure: unknown;
  let rawText: string | undefined;
  const waiters: Array<() => void> = [];
  const wake = (): void => {
    for (const w of waiters.splice(0)) w();
  };
  const accept = (m: M): void => {
    try {
      validate(m);
    } catch (error) {
      failure ??= error;
    }
    messages.push(m);
    wake();
  };

  const done = (async () => {
    try {
      if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) {
        const text = await res.text();
        try {
          if (text) accept(JSON.parse(text) as M);
          else rawText = text;
        } catch {
          rawText = text;
        }
        return;
      }
      const parser = createParser({
        onEvent: (event) => {
          events.push({ id: event.id, data: event.data });
          if (event.data.trim() === '') wake();
          else accept(JSON.parse(event.data) as M);
        },
      });
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done: end } = await reader.read();
        if (end) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch (error) {
      // A client-side close aborts the read; anything else is a real failure.
      if (!aborted.aborted) failure ??= error;
    } finally {
      finished = true;
      wake();
    }
  })();

  return {
    messages,
    events,
    done,
    failure: () => failure,
    rawText: () => rawText,
    async waitFor(predicate) {
      const skipped: M[] = [];
      for (;;) {
        if (failure) throw failure;
        while (taken < messages.length) {
          const m = messages[taken++]!;
          if (predicate(m)) return { match: m, skipped };
          skipped.push(m);
        }
        if (finished) throw new StreamEnded(`the stream ended; skipped ${JSON.stringify(skipped)}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    },
  };
}
