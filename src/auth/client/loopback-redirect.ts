/**
 * Receiving the authorization server's redirect on a loopback address
 * (RFC 8252 §7.3), for CLIs and desktop apps: a small HTTP listener on
 * 127.0.0.1 that takes the first request to its callback path, answers the
 * browser with a short page, and hands the URL to the authorization flow.
 * How the user reaches the authorization URL is the app's choice (`show`):
 * print it, open a browser, or both. Node only.
 */

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuthorizationRequest, UserAuthorization } from './authorization-code-grant.js';

export interface LoopbackRedirectOptions {
  /** The port to listen on (default 0: any free port). */
  port?: number;
  /** The callback path (default /callback). */
  path?: string;
  /** Shows the authorization URL to the user (print it, open a browser…). */
  show: (url: URL) => void | Promise<void>;
}

const PAGE = (title: string, text: string): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body style="font-family:sans-serif;margin:3em"><h1>${title}</h1><p>${text}</p></body></html>`;

export class LoopbackRedirect implements UserAuthorization {
  private server: Server | undefined;
  private listening: Promise<string> | undefined;
  private waiter: ((url: URL) => void) | undefined;

  constructor(private readonly options: LoopbackRedirectOptions) {}

  /**
   * Starts listening (once) and returns http://127.0.0.1:<port><path>. Without
   * a fixed port, the port of an earlier registration's loopback URI is tried
   * first (so that registration still fits), then any free one.
   */
  redirectUri(registered: readonly string[] = []): Promise<string> {
    const path = this.options.path ?? '/callback';
    const earlier = registered
      .map((uri) => /^http:\/\/127\.0\.0\.1:(\d+)(\/[^?#]*)$/.exec(uri))
      .find((match) => match !== null && match[2] === path)?.[1];
    const port = this.options.port ?? (earlier === undefined ? 0 : Number(earlier));
    this.listening ??= this.listen(port, path).catch((error: unknown) => {
      if (this.options.port === undefined && port !== 0) return this.listen(0, path); // that port is taken now
      throw error;
    });
    return this.listening;
  }

  private listen(port: number, path: string): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const server = createServer((req, res) => {
        const url = new URL(req.url ?? '/', `http://${req.headers.host ?? '127.0.0.1'}`);
        if (req.method !== 'GET' || url.pathname !== path || !this.waiter) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
          return;
        }
        const failed = url.searchParams.has('error');
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
          .end(failed ? PAGE('Not signed in', 'The sign-in did not complete. You can close this tab.') : PAGE('Signed in', 'You can close this tab and return to the terminal.'));
        const waiter = this.waiter;
        this.waiter = undefined;
        waiter(url);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        this.server = server;
        server.unref(); // never what keeps the process alive
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`);
      });
    });
  }

  async authorize(request: AuthorizationRequest): Promise<URL> {
    await this.redirectUri();
    const { signal } = request;
    signal?.throwIfAborted();
    const redirected = new Promise<URL>((resolve, reject) => {
      const onAbort = (): void => {
        this.waiter = undefined;
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiter = (url) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(url);
      };
    });
    try {
      await this.options.show(request.url);
    } catch (error) {
      this.waiter = undefined;
      throw error;
    }
    return redirected;
  }

  /** Stops listening. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.listening = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
