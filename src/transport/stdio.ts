/** stdio: newline-delimited JSON-RPC on a process's stdin and stdout. */

import type { Readable, Writable } from 'node:stream';
import type { RequestHandler } from '../protocol/channel.js';
import { serializeMessage } from '../protocol/jsonrpc.js';
import { LineDecoder, type MessageLink } from './link.js';
import { serveLink, type LinkServer } from './serve-link.js';

/** A link over a readable and a writable byte stream, one JSON message per line. */
export function streamLink(input: Readable, output: Writable): MessageLink {
  const closers: Array<() => void> = [];
  let closed = false;
  // Messages sent in the same turn of the event loop go out in one write: a
  // write per message costs a system call each, the largest cost of a busy pipe.
  let batch = '';
  const flush = (): void => {
    const text = batch;
    batch = '';
    if (!closed && text) output.write(text);
  };
  const close = (): void => {
    if (closed) return;
    flush();
    closed = true;
    for (const c of closers) c();
  };
  input.setEncoding('utf8');
  input.on('end', close);
  input.on('close', close);
  output.on('error', close);
  return {
    send(message) {
      const text = closed ? undefined : serializeMessage(message);
      if (text === undefined) return;
      if (batch === '') setImmediate(flush);
      batch += `${text}\n`;
    },
    onMessage(listener) {
      const decoder = new LineDecoder(listener);
      input.on('data', (text: string) => decoder.push(text));
    },
    onClose(listener) {
      closers.push(listener);
    },
    flush,
    close() {
      close();
      input.destroy();
    },
  };
}

/**
 * Serves MCP on this process's stdin/stdout. Everything else the process prints
 * must go to stderr; stdout carries only MCP messages.
 */
export function serveStdio(handler: RequestHandler, input: Readable = process.stdin, output: Writable = process.stdout): LinkServer {
  return serveLink(handler, streamLink(input, output));
}
