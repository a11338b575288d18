/**
 * Large payloads as chains of requests, in the shape of http-flows.ts: a
 * 1 MiB resource read, a call with 64 KiB of arguments, a paged tools/list of
 * 1,000 tools (one unit = the whole listing, however many pages the server
 * cuts it into; a step per possible page, ending early with `done`).
 */

import { resultOf, expectText } from '../wire/checks.js';
import {
  resourcesReadHeaders,
  resourcesReadTemplate,
  toolsCallHeaders,
  toolsCallTemplate,
  toolsListHeaders,
  toolsListPageBody,
  toolsListTemplate,
} from '../wire/requests.js';
import {
  BIG_ARGS_TEXT,
  BIG_RESOURCE_BYTES,
  BIG_RESOURCE_TEXT,
  BIG_RESOURCE_URI,
  LENGTH_TOOL,
  lengthText,
  MANY_TOOL_COUNT,
} from '../tools/payloads.js';
import { requireId, type FlowContext, type FlowStep, type HttpFlow } from './http-flows.js';

/** Full parse of 1 in this many large replies; the others get substring checks (the load generator parses in JavaScript). */
const PARSE_EVERY = 10;
let largeReplies = 0;

export const resourceReadFlow: HttpFlow = {
  unit: 'request',
  steps: [
    {
      headers: resourcesReadHeaders(BIG_RESOURCE_URI),
      body: resourcesReadTemplate(BIG_RESOURCE_URI),
      check(status, body, context) {
        const id = requireId(context);
        if (++largeReplies % PARSE_EVERY === 0) {
          const result = resultOf(status, body, id);
          if (typeof result === 'string') return result;
          const first = Array.isArray(result.contents) ? (result.contents[0] as Record<string, unknown> | undefined) : undefined;
          if (first?.uri !== BIG_RESOURCE_URI || first.text !== BIG_RESOURCE_TEXT) return 'resources/read did not return the 1 MiB text';
          return undefined;
        }
        if (status !== 200) return `HTTP ${status}`;
        if (body.length < BIG_RESOURCE_BYTES || !body.includes(`"id":${id}`) || !body.includes('"contents":[') || body.includes('"error":')) {
          return 'not the 1 MiB resources/read result for this id';
        }
        return undefined;
      },
    },
  ],
};

export const bigArgsFlow: HttpFlow = {
  unit: 'request',
  steps: [
    {
      headers: toolsCallHeaders(LENGTH_TOOL),
      body: toolsCallTemplate(LENGTH_TOOL, { data: BIG_ARGS_TEXT }),
      check(status, body, context) {
        const result = resultOf(status, body, requireId(context));
        return typeof result === 'string' ? result : expectText(result, { text: lengthText(BIG_ARGS_TEXT.length) });
      },
    },
  ],
};

/** At most this many pages: Tessera's 100 a page makes 10, the official SDK does not page (1). */
const MAX_PAGES = 12;
const NEXT_CURSOR = /"nextCursor":"([^"\\]*)"/;

/** Counts the tools of a page by their input schemas (one each); every tenth page is parsed and checked in full. */
function checkPage(status: number, body: string, context: FlowContext): string | undefined {
  const id = requireId(context);
  const cursor = NEXT_CURSOR.exec(body)?.[1];
  let tools = 0;
  if (++largeReplies % PARSE_EVERY === 0) {
    const result = resultOf(status, body, id);
    if (typeof result === 'string') return result;
    if (result.resultType !== 'complete' || !Array.isArray(result.tools)) return 'not a complete tools/list result';
    for (const tool of result.tools as Array<Record<string, unknown>>) {
      const schema = tool.inputSchema as Record<string, unknown> | undefined;
      if (typeof tool.name !== 'string' || schema?.type !== 'object') return `malformed tool ${JSON.stringify(tool).slice(0, 200)}`;
    }
    if (result.nextCursor !== cursor) return 'nextCursor not where expected';
    tools = result.tools.length;
  } else {
    if (status !== 200) return `HTTP ${status}`;
    if (!body.includes(`"id":${id}`) || !body.includes('"resultType":"complete"') || !body.includes('"tools":[')) return 'not a complete tools/list result for this id';
    for (let at = body.indexOf('"inputSchema":'); at !== -1; at = body.indexOf('"inputSchema":', at + 14)) tools++;
  }
  context.listed = (context.listed ?? 0) + tools;
  if (cursor !== undefined) {
    context.cursor = cursor;
    return undefined;
  }
  if (context.listed !== MANY_TOOL_COUNT) return `listing ended with ${context.listed} tools, expected ${MANY_TOOL_COUNT}`;
  context.done = true;
  return undefined;
}

const firstPage: FlowStep = { headers: toolsListHeaders(), body: toolsListTemplate(), check: checkPage };
const laterPage: FlowStep = {
  headers: toolsListHeaders(),
  body: (id, context) => (context.done || context.failed || context.cursor === undefined ? undefined : toolsListPageBody(id, context.cursor)),
  check(status, body, context) {
    context.cursor = undefined;
    return checkPage(status, body, context);
  },
};

/** Last page of a listing that still had a cursor: more pages than MAX_PAGES. */
const overflowCheck = (step: FlowStep): FlowStep => ({
  ...step,
  check(status, body, context) {
    const error = step.check(status, body, context);
    return error ?? (context.done ? undefined : `more than ${MAX_PAGES} pages`);
  },
});

export const pagedListFlow: HttpFlow = {
  unit: 'listing',
  steps: [firstPage, ...Array.from({ length: MAX_PAGES - 2 }, () => laterPage), overflowCheck(laterPage)],
};
