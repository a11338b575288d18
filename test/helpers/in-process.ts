/** Calls a server in-process through its RequestHandler seam, recording notifications, validating everything sent. */

import type { JsonRpcNotification, RequestChannel, RequestHandler } from '../../src/protocol.js';
import { meta } from './http.js';
import { assertServerMessage } from './wire-schema.js';
import { httpStatusFor } from '../../src/transport/http/status.js';

export interface InProcessReply {
  status: number;
  response: Record<string, unknown>;
  notifications: JsonRpcNotification[];
}

let nextId = 1;

export async function call(
  handler: RequestHandler,
  method: string,
  params: Record<string, unknown> = {},
  channel: Partial<RequestChannel> = {},
): Promise<InProcessReply> {
  const notifications: JsonRpcNotification[] = [];
  const full = '_meta' in params ? params : { ...params, _meta: meta() };
  const reply = await handler.handleRequest(
    { jsonrpc: '2.0', id: nextId++, method, params: full },
    {
      signal: new AbortController().signal,
      canNotify: true,
      send: (n) => {
        assertServerMessage(n);
        notifications.push(n as JsonRpcNotification);
      },
      ...channel,
    },
  );
  assertServerMessage(reply.message, method);
  // The status Streamable HTTP would send it with (decided at the edge, transport/http/status.ts).
  const code = 'error' in reply.message ? reply.message.error.code : undefined;
  return { status: httpStatusFor(code, reply.condition, reply.legacy), response: reply.message as unknown as Record<string, unknown>, notifications };
}
