/**
 * A 2025-11-25 session from set-up to end, as a chain of requests (one unit
 * = one session): `initialize` (its reply's Mcp-Session-Id kept in the
 * flow's context), `notifications/initialized` on the session, then the
 * session's DELETE, so the server holds at most one session per connection.
 * The DELETE is sent whenever a session was made, even after a failed
 * initialized (the unit then does not count), so that errors do not fill the server.
 */

import { expectAccepted, expectEnded, expectSessionCreated } from '../wire/legacy-checks.js';
import { INITIALIZE_HEADERS, INITIALIZED_BODY, initializeTemplate, sessionHeaders, sessionPostHeaders } from '../wire/legacy-requests.js';
import type { FlowContext, FlowStep, HttpFlow } from './http-flows.js';

const initialize: FlowStep = {
  headers: INITIALIZE_HEADERS,
  body: initializeTemplate,
  check(status, body, context, headers) {
    if (context.id === undefined) return 'a response arrived for a request that was never built';
    const created = expectSessionCreated(status, body, context.id, headers);
    if (typeof created === 'string') return created;
    context.sessionId = created.sessionId;
    return undefined;
  },
};

const initialized: FlowStep = {
  headers: INITIALIZE_HEADERS, // replaced by headersFor: the session's id and version
  headersFor: (context) => sessionPostHeaders(context.sessionId ?? ''),
  body: (_id, context) => (context.failed || context.sessionId === undefined ? undefined : INITIALIZED_BODY),
  check: (status) => expectAccepted(status),
};

const end: FlowStep = {
  method: 'DELETE',
  headers: {},
  headersFor: (context) => sessionHeaders(context.sessionId ?? ''),
  body: (_id, context: FlowContext) => (context.sessionId === undefined ? undefined : ''),
  check: (status) => expectEnded(status),
};

export const sessionFlow: HttpFlow = { unit: 'session', steps: [initialize, initialized, end] };
