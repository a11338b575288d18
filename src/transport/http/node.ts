/** Streamable HTTP on `node:http`: a request listener, and a one-call server for the common case. */

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestHandler } from '../../protocol/channel.js';
import { HttpCore, pathOf, type HttpTransportOptions } from './core.js';
import { LOOPBACK_HOSTS } from './host-guard.js';
import { quickView, responderFor, serveNodeRequest } from './node-request.js';

export interface NodeHandlerOptions extends HttpTransportOptions {
  /** The MCP endpoint path (default `/mcp`); other paths get 404. */
  path?: string;
}

/** A `(req, res)` listener serving MCP on `path`; mount it on any node:http-compatible server. */
export function createNodeHandler(
  handler: RequestHandler,
  options: NodeHandlerOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  const core = new HttpCore(handler, options);
  const path = options.path ?? '/mcp';
  return (req, res) => {
    const target = req.url ?? '/';
    if (pathOf(target) === path) {
      serveNodeRequest(core, req, res, target);
      return;
    }
    // Beside the endpoint, only its Protected Resource Metadata (when it is a protected resource).
    const metadata = core.metadata(quickView(req, target));
    if (metadata) responderFor(res).send(...metadata);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
    req.resume();
  };
}

export interface HttpServeOptions extends NodeHandlerOptions {
  /** Port to listen on (default 0: any free port). */
  port?: number;
  /** Interface to bind (default 127.0.0.1). */
  host?: string;
  /** How long a slow client may take, in ms (Node's defaults are far more patient). */
  timeouts?: {
    /** To send its request headers (default 10 s). */
    headersMs?: number;
    /** To send its whole request, body included (default 30 s; a long SSE response is not limited by it). */
    requestMs?: number;
    /** An idle kept-alive connection stays open (default 65 s, beyond the 60 s of common load balancers). */
    keepAliveMs?: number;
  };
}

export interface RunningHttpServer {
  /** The endpoint URL, e.g. `http://127.0.0.1:3000/mcp`. */
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/**
 * Serves MCP over HTTP on `host:port`. On a loopback interface the Host/Origin
 * check is on with the loopback names (plus any `allowedHosts`); on any other
 * interface it checks `allowedHosts` (or is off when none is given, since the
 * names are unknown). Slow clients are bounded by `timeouts`.
 */
export async function serveHttp(handler: RequestHandler, options: HttpServeOptions = {}): Promise<RunningHttpServer> {
  const host = options.host ?? '127.0.0.1';
  const loopback = LOOPBACK_HOSTS.includes(host) || host.startsWith('127.');
  // Listening on loopback, the loopback names stay allowed beside any public names given (the printed URL must work).
  const allowedHosts = options.allowedHosts === 'any' ? 'any' : loopback ? [...new Set([...LOOPBACK_HOSTS, ...(options.allowedHosts ?? [])])] : (options.allowedHosts ?? 'any');
  const effective: NodeHandlerOptions = { ...options, allowedHosts };
  // The handler is attached once listening: the URL (with its port) is the default resource of `auth`.
  // Timeouts are checked this often (Node's default, 30 s, would let a slow client far past them).
  const server = createServer({ connectionsCheckingInterval: 1000 });
  server.headersTimeout = options.timeouts?.headersMs ?? 10_000;
  server.requestTimeout = options.timeouts?.requestMs ?? 30_000;
  server.keepAliveTimeout = options.timeouts?.keepAliveMs ?? 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}${options.path ?? '/mcp'}`;
  try {
    server.on('request', createNodeHandler(handler, { ...effective, endpoint: options.endpoint ?? url }));
  } catch (error) {
    server.close();
    throw error;
  }
  return {
    url,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
