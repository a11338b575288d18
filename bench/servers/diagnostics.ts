/**
 * A second, tiny HTTP listener inside each benchmark server process, on its
 * own port so it never shares a socket or a path with the MCP endpoint under
 * test. The load generator asks it for the process's memory:
 *
 *   GET /memory         current heap and RSS (sampled while load runs)
 *   GET /memory?gc=1    the same after full garbage collections (needs --expose-gc),
 *                       for "heap retained after N abandoned flows"
 *   POST /change        makes a change the server's listen streams are told about (a tool
 *                       added), for the fan-out cells; 404 where the server has no such hook
 *
 * It also reports named counters a server keeps (e.g. how often the wizard's
 * `once` step really ran).
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MemoryReport {
  heapUsed: number;
  heapTotal: number;
  rss: number;
  external: number;
  arrayBuffers: number;
  counters: Record<string, number>;
}

type GcFunction = () => void;

function collectGarbage(): void {
  const gc = (globalThis as { gc?: GcFunction }).gc;
  if (!gc) throw new Error('start the server with --expose-gc to measure retained heap');
  // Twice: objects whose finalizers or weak callbacks ran in the first pass are freed by the second.
  gc();
  gc();
}

/** Starts the diagnostics listener on 127.0.0.1 and prints `diagnostics <url>` on stderr for the harness. */
export async function serveDiagnostics(counters: () => Record<string, number> = () => ({}), change?: () => void): Promise<void> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/change' && req.method === 'POST' && change) {
      change();
      res.writeHead(204).end();
      return;
    }
    if (url.pathname !== '/memory') {
      res.writeHead(404).end();
      return;
    }
    try {
      if (url.searchParams.get('gc') === '1') collectGarbage();
      const usage = process.memoryUsage();
      const report: MemoryReport = {
        heapUsed: usage.heapUsed,
        heapTotal: usage.heapTotal,
        rss: usage.rss,
        external: usage.external,
        arrayBuffers: usage.arrayBuffers,
        counters: counters(),
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(report));
    } catch (error) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref(); // never what keeps the process alive
  const { port } = server.address() as AddressInfo;
  process.stderr.write(`diagnostics http://127.0.0.1:${port}/memory\n`);
}

/**
 * Exits cleanly on SIGTERM/SIGINT, so `node --cpu-prof` gets to write its
 * profile (a process killed by the default signal handler writes nothing).
 */
export function exitOnSignals(close: () => Promise<void> | void = () => undefined): void {
  const stop = (signal: NodeJS.Signals): void => {
    // Said on stderr, so that a server stopped by someone other than the harness shows why it went.
    process.stderr.write(`exiting on ${signal}\n`);
    void Promise.resolve()
      .then(close)
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  process.once('beforeExit', () => process.stderr.write('exiting: nothing left to do (the listener closed)\n'));
}

/**
 * The last steps of every bench server's start-up, in the order the harness
 * expects: the diagnostics listener, then `listening <url>` on stderr (what
 * startServer waits for), then a clean exit on SIGTERM/SIGINT.
 */
export async function announceListening(url: string, close: () => Promise<void> | void, counters?: () => Record<string, number>, change?: () => void): Promise<void> {
  await serveDiagnostics(counters, change);
  process.stderr.write(`listening ${url}\n`);
  exitOnSignals(close);
}

/** `--keep-alive-ms N` as every bench server takes it: idle kept-alive connections stay open N ms (default 65 s, as Tessera's serveHttp). */
export const KEEP_ALIVE_OPTION = { 'keep-alive-ms': { type: 'string', default: '65000' } } as const;
