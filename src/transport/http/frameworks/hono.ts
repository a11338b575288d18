/**
 * Hono: `app.all('/mcp', mcpHono(server))`. Built on the fetch handler, so it
 * runs wherever Hono runs (Node through @hono/node-server, Bun, Deno,
 * Workers). A body the app already read (`await c.req.json()` in a middleware)
 * is taken from Hono's cache: the raw request's stream is spent by then.
 */

import type { Context, MiddlewareHandler } from 'hono';
import type { RequestHandler } from '../../../protocol/channel.js';
import { HttpCore, type HttpTransportOptions } from '../core.js';
import { metadataAnswer, serveFetchRequest } from '../fetch.js';

export interface McpHonoHandler {
  (c: Context): Promise<Response>;
  /**
   * With `auth`: the Protected Resource Metadata, which lives at the root of
   * the origin (`/.well-known/oauth-protected-resource/…`): `app.use(mcp.metadata)`.
   * Any other path goes on to the next handler.
   */
  readonly metadata: MiddlewareHandler;
}

/**
 * The MCP endpoint as a Hono handler, for the route it is given. Host/Origin,
 * `maxBodyBytes`, `auth` and `cors` hold as on the built-in transport. With
 * `auth`, set `endpoint` (or the resource) to the public URL of the endpoint.
 */
export function mcpHono(handler: RequestHandler, options: HttpTransportOptions = {}): McpHonoHandler {
  const core = new HttpCore(handler, options);
  const endpoint = async (c: Context): Promise<Response> => {
    const request = c.req.raw;
    // Under Deno.serve(app.fetch), Hono's env is Deno's handler info (see createFetchHandler).
    const info: unknown = c.env;
    if (!request.bodyUsed) return serveFetchRequest(core, request, undefined, info);
    let text: string;
    try {
      // Hono keeps what it read; asked for text, it gives the same body (JSON written back as JSON).
      text = await c.req.text();
    } catch {
      const [status, headers, body] = core.bodyConsumed();
      return new Response(body, { status, headers });
    }
    return serveFetchRequest(core, request, { text }, info);
  };
  const metadata: MiddlewareHandler = async (c, next) => {
    const url = new URL(c.req.url);
    const answer = core.metadata({
      method: c.req.method,
      target: `${url.pathname}${url.search}`,
      header: (name) => c.req.header(name),
      signal: c.req.raw.signal,
      aborted: false,
    });
    if (answer) return metadataAnswer(answer, c.req.method);
    await next();
    return undefined;
  };
  return Object.assign(endpoint, { metadata });
}
