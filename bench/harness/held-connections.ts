/**
 * Many HTTP/1.1 connections held open at once, each on its own keep-alive
 * agent (one socket per agent), for the memory rows of the workloads3
 * phase: an idle connection after one checked request, or a response
 * stream (SSE) left open once its first event or its headers were checked.
 * A bounded number are opened at a time; each socket's close is watched, so
 * a server that drops one while it should be held shows as an error.
 */

import { Agent, request as httpRequest, type IncomingMessage, type IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

export interface HeldRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
}

/** What a held connection waits for before it counts as open. */
export type HoldUntil =
  /** the whole reply (then the connection sits idle) */
  | 'body'
  /** the first SSE event of a stream that stays open */
  | 'first-event'
  /** the status and headers of a stream that stays open (a 2025 GET stream may send nothing at first) */
  | 'headers';

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  /** The whole body ('body'), the first event's text ('first-event'), or '' ('headers'). */
  text: string;
}

/** One connection of its own, held until `release`. */
export class HeldConnection {
  readonly agent = new Agent({ keepAlive: true, maxSockets: 1 });
  private socket: Socket | undefined;
  private released = false;
  /** The server (or the network) closed the socket while it was held. */
  droppedByServer = false;
  private response: IncomingMessage | undefined;
  /** Called with what a held stream sends after its first event (fan-out cells). */
  private later: ((chunk: string) => void) | undefined;

  constructor(private readonly url: URL) {}

  /** Sends `req` on this connection and resolves once `until` is reached (the socket stays open). */
  send(req: HeldRequest, until: HoldUntil, timeoutMs = 30_000): Promise<Reply> {
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        { host: this.url.hostname, port: this.url.port, path: this.url.pathname, method: req.method, headers: req.headers, agent: this.agent },
        (response) => {
          clearTimeout(timer);
          this.response = response;
          response.setEncoding('utf8');
          const reply = { status: response.statusCode ?? 0, headers: response.headers };
          if (until === 'headers') {
            resolve({ ...reply, text: '' });
            response.on('data', () => undefined); // keep reading whatever the stream sends later
            return;
          }
          let text = '';
          let settled = false;
          response.on('data', (chunk: string) => {
            if (settled) {
              this.later?.(chunk);
              return;
            }
            text += chunk;
            if (until === 'first-event') {
              const end = text.indexOf('\n\n');
              if (end >= 0) {
                settled = true;
                resolve({ ...reply, text: text.slice(0, end) });
              }
            }
          });
          response.on('end', () => {
            if (!settled) resolve({ ...reply, text });
            settled = true;
          });
        },
      );
      const timer = setTimeout(() => outgoing.destroy(new Error(`no reply within ${timeoutMs} ms`)), timeoutMs);
      outgoing.on('socket', (socket: Socket) => {
        if (this.socket === socket) return;
        this.socket = socket;
        socket.once('close', () => {
          if (!this.released) this.droppedByServer = true;
        });
      });
      outgoing.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      outgoing.end(req.body);
    });
  }

  /**
   * Resolves with performance.now() when the held stream next sends
   * something containing `marker` (its first event already consumed by send).
   * Chunks are searched one by one: the markers used are short and an SSE
   * event's data line arrives in one write.
   */
  nextContaining(marker: string, timeoutMs = 30_000): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.later = undefined;
        reject(new Error(`no '${marker}' within ${timeoutMs} ms`));
      }, timeoutMs);
      this.later = (chunk) => {
        if (!chunk.includes(marker)) return;
        clearTimeout(timer);
        this.later = undefined;
        resolve(performance.now());
      };
    });
  }

  /** Closes the connection (and any stream on it). */
  release(): void {
    this.released = true;
    this.response?.destroy();
    this.socket?.destroy();
    this.agent.destroy();
  }
}

/**
 * Runs `open(i)` for i in [0, count), at most `concurrency` at a time, and
 * returns the errors (messages) in order of occurrence; `open` resolves to
 * an error message or undefined.
 */
export async function openMany(count: number, concurrency: number, open: (index: number) => Promise<string | undefined>): Promise<string[]> {
  const errors: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const index = next++;
      try {
        const error = await open(index);
        if (error !== undefined) errors.push(error);
      } catch (error) {
        errors.push(error instanceof Error ? error.message : String(error));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return errors;
}
