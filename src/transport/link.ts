/**
 * A message link: one bidirectional stream of JSON-RPC messages (stdio, an
 * in-memory pair, a socket). Transports that carry whole messages implement it;
 * `serveLink` serves MCP over any of them.
 */

import { serializeMessage, type JsonRpcMessage } from '../protocol/jsonrpc.js';

export interface MessageLink {
  /** Sends one message. */
  send(message: JsonRpcMessage): void;
  /** Receives each incoming message as parsed JSON (untrusted), or a parse failure as `undefined` with the raw text. */
  onMessage(listener: (message: unknown, raw?: string) => void): void;
  /** Called once when the other side goes away. */
  onClose(listener: () => void): void;
  /** Writes at once what `send` has queued (links that batch their writes), e.g. before the output is ended. */
  flush?(): void;
  close(): void;
}

const PARSE_FAILED = Symbol('parse failed');

/** Splits a UTF-8 text stream into lines; each non-empty line is one JSON message. */
export class LineDecoder {
  /** What came after the last newline so far, in the chunks it came in: joined once, when its newline arrives. */
  private partial: string[] = [];
  private partialLength = 0;

  constructor(
    private readonly deliver: (message: unknown, raw?: string) => void,
    private readonly maxLineBytes = 16 * 1024 * 1024,
  ) {}

  push(text: string): void {
    // Only the new text is searched: a long message over many chunks is neither rescanned nor recopied per chunk.
    const lastNewline = text.lastIndexOf('\n');
    if (lastNewline < 0) {
      this.keep(text);
    } else {
      const buffer = this.partial.length === 0 ? text : this.partial.join('') + text;
      const end = buffer.length - text.length + lastNewline;
      // The tail is kept before anything is delivered, so a listener that throws cannot make a line come twice;
      // lines are cut from the one string by index (no copy of the rest per line).
      this.partial = [];
      this.partialLength = 0;
      if (lastNewline + 1 < text.length) this.keep(text.slice(lastNewline + 1));
      let start = 0;
      while (start <= end) {
        const newline = buffer.indexOf('\n', start);
        this.line(buffer, start, newline);
        start = newline + 1;
      }
    }
    if (this.partialLength > this.maxLineBytes) {
      // A line this long is not a message we will take; drop it and answer as unparsable.
      this.partial = [];
      this.partialLength = 0;
      this.deliver(undefined, '');
    }
  }

  private keep(text: string): void {
    this.partial.push(text);
    this.partialLength += text.length;
  }

  /** The line buffer[start, stop), without a CR before its newline. */
  private line(buffer: string, start: number, stop: number): void {
    const last = stop > start && buffer.charCodeAt(stop - 1) === CR ? stop - 1 : stop;
    // A message starts with '{' (or '['); only other lines need the blank-line check.
    const first = buffer.charCodeAt(start);
    if (last === start || (first !== OPEN_BRACE && buffer.slice(start, last).trim() === '')) return;
    const text = buffer.slice(start, last);
    const parsed = parseOrMark(text);
    if (parsed === PARSE_FAILED) this.deliver(undefined, text);
    else this.deliver(parsed);
  }
}

const CR = 13;
const OPEN_BRACE = 123;

function parseOrMark(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return PARSE_FAILED;
  }
}

/** Two linked ends in one process; messages go through JSON text, as on a real wire. */
export function createLinkPair(): [MessageLink, MessageLink] {
  type End = { listeners: Array<(m: unknown, raw?: string) => void>; closers: Array<() => void>; closed: boolean };
  const a: End = { listeners: [], closers: [], closed: false };
  const b: End = { listeners: [], closers: [], closed: false };
  const closeBoth = (): void => {
    for (const end of [a, b]) {
      if (end.closed) continue;
      end.closed = true;
      for (const c of end.closers) queueMicrotask(c);
    }
  };
  const make = (self: End, peer: End): MessageLink => ({
    send(message) {
      if (self.closed) throw new Error('The link is closed');
      const text = serializeMessage(message);
      if (text === undefined) return;
      queueMicrotask(() => {
        if (peer.closed) return;
        for (const l of peer.listeners) l(JSON.parse(text));
      });
    },
    onMessage(listener) {
      self.listeners.push(listener);
    },
    onClose(listener) {
      self.closers.push(listener);
    },
    close: closeBoth,
  });
  return [make(a, b), make(b, a)];
}
