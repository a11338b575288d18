/**
 * Fastify 5: `await app.register(mcpFastify(server), { prefix: '/mcp' })`.
 * The plugin's route takes the body Fastify's JSON parser (or the app's own
 * parser for application/json) produced; the checks that need no body run in
 * `onRequest`, before Fastify reads one, so a refusal (bad Host, 415, an
 * announced oversized body) has the built-in transport's answer, and the
 * parser's own failures (too large, not JSON) get them too. The route answers
 * through the raw response (`reply.hijack()`), since a reply may be a stream.
 */

import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { RequestHandler } from '../../../protocol/channel.js';
import { HttpCore, type HttpTransportOptions } from '../core.js';
import { quickView, responderFor, serveNodeRequest } from '../node-request.js';

/** Every method the endpoint answers (others get 405 from the core, as on the built-in transport). */
const METHODS = ['GET', 'POST', 'DELETE', 'OPTIONS', 'PUT', 'PATCH', 'HEAD'];

export interface McpFastifyPlugin extends FastifyPluginAsync {
  /**
   * With `auth`: the Protected Resource Metadata routes, at the root of the
   * origin (`/.well-known/oauth-protected-resource/…`): register it without
   * a prefix, `await app.register(mcp.metadata)`.
   */
  readonly metadata: FastifyPluginAsync;
}

/** Sends a refusal the Fastify way (its onSend hooks still see it). */
function refuse(reply: FastifyReply, [status, headers, body]: [number, Record<string, string>, string]): FastifyReply {
  return reply.code(status).headers(headers).send(body === '' ? undefined : body);
}

/**
 * The MCP endpoint as a Fastify plugin, served at the prefix it is registered
 * with. Host/Origin, `maxBodyBytes` (also the route's `bodyLimit`), `auth` and
 * `cors` hold as on the built-in transport. With `auth`, set `endpoint` (or
 * the resource) to the public URL of the endpoint.
 */
export function mcpFastify(handler: RequestHandler, options: HttpTransportOptions = {}): McpFastifyPlugin {
  const core = new HttpCore(handler, options);
  const endpoint: FastifyPluginAsync = async (app) => {
    // Only this plugin's routes: a parser failure becomes the answer the built-in transport gives.
    app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return refuse(reply, core.tooLarge());
      if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
        reply.hijack();
        // Text that is not JSON: the caller is checked, then -32700, as for any unparseable body.
        serveNodeRequest(core, request.raw, reply.raw, request.raw.url ?? '/', { body: '' });
        return reply;
      }
      throw error;
    });
    app.route({
      method: METHODS,
      url: '/',
      bodyLimit: core.maxBodyBytes,
      exposeHeadRoute: false,
      onRequest: async (request, reply) => {
        const refusal = core.precheck(quickView(request.raw, request.raw.url ?? '/'));
        if (refusal) return refuse(reply, refusal);
        return undefined;
      },
      handler: (request, reply) => {
        reply.hijack();
        serveNodeRequest(core, request.raw, reply.raw, request.raw.url ?? '/', { body: request.body });
      },
    });
  };
  const metadata: FastifyPluginAsync = async (app) => {
    for (const path of core.metadataPaths) {
      app.route({
        method: METHODS,
        url: path,
        exposeHeadRoute: false,
        handler: (request, reply) => {
          const answer = core.metadata(quickView(request.raw, request.raw.url ?? path));
          if (!answer) return reply.callNotFound();
          reply.hijack();
          responderFor(reply.raw).send(...answer);
          return reply;
        },
      });
    }
  };
  return Object.assign(endpoint, { metadata });
}
