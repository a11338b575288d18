/**
 * Express 5: `app.use('/mcp', mcpExpress(server))` or `app.all('/mcp', …)`.
 * Mounted with `app.use`, Express strips the mount path from `req.url`, so the
 * endpoint is whatever reaches the middleware at its root; deeper paths go on
 * to the next middleware. A body `express.json()` already read is taken from
 * `req.body`. Typed on node:http's own types, so it needs no `@types/express`.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from '../../../protocol/channel.js';
import { HttpCore, pathOf, type HttpTransportOptions } from '../core.js';
import { quickView, responderFor, serveNodeRequest } from '../node-request.js';

/** What Express adds to a request that the adapter reads. */
interface ExpressRequestParts {
  /** The URL before mounting stripped its path (the client's own target). */
  originalUrl?: string;
  /** Set when the middleware is a route handler (`app.all('/mcp', …)`): Express matched the path already. */
  route?: unknown;
}

/** Express's `next`. */
export type ExpressNext = (error?: unknown) => void;

/** Express middleware: `(req, res, next)`. */
export type ExpressMiddleware = (req: IncomingMessage, res: ServerResponse, next: ExpressNext) => void;

export interface McpExpressMiddleware extends ExpressMiddleware {
  /**
   * With `auth`: the Protected Resource Metadata, which lives at the root of
   * the origin (`/.well-known/oauth-protected-resource/…`), so mount it there:
   * `app.use(mcp.metadata)`. Any other path goes on to the next middleware.
   */
  readonly metadata: ExpressMiddleware;
}

/**
 * The MCP endpoint as Express middleware. Everything the built-in transport
 * checks holds: Host/Origin, body limits (`maxBodyBytes`; a parser before it
 * has its own limit, e.g. express.json()'s 100 kB), `auth`, `cors`. With
 * `auth`, set `endpoint` (or the resource) to the public URL of the endpoint.
 */
export function mcpExpress(handler: RequestHandler, options: HttpTransportOptions = {}): McpExpressMiddleware {
  const core = new HttpCore(handler, options);
  const middleware: ExpressMiddleware = (req, res, next) => {
    const parts = req as IncomingMessage & ExpressRequestParts;
    const path = pathOf(req.url ?? '/');
    if (parts.route === undefined && path !== '/' && path !== '') {
      next();
      return;
    }
    serveNodeRequest(core, req, res, parts.originalUrl ?? req.url ?? '/');
  };
  const metadata: ExpressMiddleware = (req, res, next) => {
    const parts = req as IncomingMessage & ExpressRequestParts;
    const answer = core.metadata(quickView(req, parts.originalUrl ?? req.url ?? '/'));
    if (answer) responderFor(res).send(...answer);
    else next();
  };
  return Object.assign(middleware, { metadata });
}
