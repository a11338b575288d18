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
  close(): void;
}

const PARSE_FAILED = Symbol('parse failed');

/** Splits a UTF-8 text stream into lines; each non-empty line is one JSON message. */
export class LineDecoder {
  private buffer = '';

  constructor(
    private readonly deliver: (message: unknown, raw?: string) => void,
    private readonly maxLineBytes = 16 * 1024 * 1024,
  ) {}

  push(text: string): void {
    const buffer = this.buffer + text;
    // Lines are cut from one string by index, and only what follows the last newline is kept: no copy of the rest per line.
    const lines: string[] = [];
    let start = 0;
    let newline: number;
    while ((newline = buffer.indexOf('\n', start)) >= 0) {
      lines.push(buffer.slice(start, newline));
      start = newline + 1;
    }
    // Kept before anything is delivered, so a listener that throws cannot make a line come twice.
    this.buffer = start === 0 ? buffer : buffer.slice(start);
    for (const line of lines) this.line(line);
    if (this.buffer.length > this.maxLineBytes) {
      // A line this long is not a message we will take; drop it and answer as unparsable.
      this.buffer = '';
      this.deliver(undefined, '');
    }
  }

  private line(raw: string): void {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return;
    const parsed = parseOrMark(text);
    if (parsed === PARSE_FAILED) this.deliver(undefined, text);
    else this.deliver(parsed);
  }
}

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
