/**
 * A second, tiny HTTP listener inside each benchmark server process, on its
 * own port so it never shares a socket or a path with the MCP endpoint under
 * test. The load generator asks it for the process's memory:
 *
 *   GET /memory         current heap and RSS (sampled while load runs)
 *   GET /memory?gc=1    the same after full garbage collections (needs --expose-gc),
 *                       for "heap retained after N abandoned flows"
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
export async function serveDiagnostics(counters: () => Record<string, number> = () => ({})): Promise<void> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
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
