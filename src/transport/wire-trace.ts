/**
 * A trace of the JSON-RPC messages a transport carries, for a person
 * debugging: `→` what the peer sent, `←` what went back, one message a line,
 * as the README's "On the wire" shows. It prints everything, arguments and
 * answers included, so it is never on by default.
 */

import type { JsonRpcMessage } from '../protocol/jsonrpc.js';

/** `in`: a message the transport received; `out`: one it sent (responses, notifications, requests to the client). */
export type WireDirection = 'in' | 'out';

export type WireTrace = (direction: WireDirection, message: JsonRpcMessage) => void;

/** One trace line: `→ {…}` for a message received, `← {…}` for one sent. */
export function wireLine(direction: WireDirection, message: JsonRpcMessage): string {
  return `${direction === 'in' ? '→' : '←'} ${JSON.stringify(message)}`;
}

/** A trace that writes each message as one line (default: to stderr, through console.error). */
export function printWire(write: (line: string) => void = (line) => console.error(line)): WireTrace {
  return (direction, message) => write(wireLine(direction, message));
}
