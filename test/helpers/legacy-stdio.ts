/**
 * A stdio MCP server in a real child process, driven with raw newline-delimited
 * JSON-RPC in either era. Each request is sent tagged with its era; each line
 * the server writes must be one JSON-RPC message and is validated against the
 * schema of its era: responses by the era of the request they answer, the
 * server's own requests (which only a 2025-era connection may get) and
 * notifications against 2025-11-25 once `initialize` was sent. Stopped by PID.
 */

import { StdioChild, type Message } from './stdio-child.js';
import { assertServerMessage } from './wire-schema.js';
import { assertServerMessage2025 } from './wire-schema-2025.js';

export type Json = Record<string, any>;
export type Era = 'legacy' | 'modern';

export class EraStdioChild extends StdioChild {
  /** Everything the test wrote, in order. */
  readonly sent: Json[] = [];
  private legacy = false;
  private readonly requests = new Map<unknown, { method: string; era: Era }>();

  protected override validate(message: Message): void {
    if ('result' in message || 'error' in message) {
      const request = this.requests.get(message.id);
      if (request?.era === 'modern') assertServerMessage(message, request.method);
      else assertServerMessage2025(message, request?.method);
    } else if ('id' in message) {
      if (!this.legacy) throw new Error(`a server request before initialize: ${JSON.stringify(message)}`);
      assertServerMessage2025(message);
    } else if (this.legacy) {
      assertServerMessage2025(message);
    } else {
      assertServerMessage(message);
    }
  }

  /** Writes one message as one line; a request is remembered with its era to validate its response. */
  override send(message: Json, era: Era = 'legacy'): void {
    if (message.method === 'initialize') this.legacy = true;
    if (typeof message.method === 'string' && 'id' in message) this.requests.set(message.id, { method: message.method, era });
    this.sent.push(message);
    this.write(`${JSON.stringify(message)}\n`);
  }

  override response(id: string | number): Promise<Json> {
    return super.response(id) as Promise<Json>;
  }

  /** The first server request (a message with method and id) not in `seen`. */
  serverRequest(what: string, seen: ReadonlySet<unknown> = new Set()): Promise<Json> {
    return this.until(what, () => this.messages.find((m) => typeof m.method === 'string' && 'id' in m && !seen.has(m.id)));
  }
}
