/**
 * The HTTP workloads as chains of requests. One pass through a chain is one
 * unit of work: a single call for echo and tools/list, a complete MRTR
 * exchange (call → input_required → retry with the answer and the
 * requestState → complete) for the flows. Each step builds its request from
 * what the previous step's response left in the flow's context, and checks
 * its own response.
 */

import {
  CONFIRM_ITEM,
  CONFIRM_KEY,
  CONFIRM_TOOL,
  confirmedText,
  ECHO_TEXT,
  ECHO_TOOL,
  LISTED_TOOL_COUNT,
  WIZARD_COLOR_ANSWER,
  WIZARD_COLOR_KEY,
  WIZARD_NAME_ANSWER,
  WIZARD_NAME_KEY,
  WIZARD_ORDER,
  WIZARD_TOOL,
  wizardText,
} from '../tools/catalog.js';
import { expectFormQuestion, expectText, expectToolList, resultOf } from '../wire/checks.js';
import { accepted, toolsCallHeaders, toolsCallRetryBody, toolsCallTemplate, toolsListHeaders, toolsListTemplate } from '../wire/requests.js';

/** Per-connection memory of the flow in progress (autocannon's request context). */
export interface FlowContext {
  /** The JSON-RPC id of the request in flight. */
  id?: number;
  /** The requestState the last input_required result carried. */
  requestState?: string;
  /** When the flow's first request was built (performance.now()). */
  startedAt?: number;
  /** The flow ended before its last step (a listing's last page, a task found completed): the unit counts, the chain starts over. */
  done?: boolean;
  /** A response was wrong: the steps left build nothing, so the chain starts over. */
  failed?: boolean;
  /** The paged listing: the cursor to send next, and how many tools came so far. */
  cursor?: string;
  listed?: number;
  /** The task being polled. */
  taskId?: string;
  /** The 2025-11-25 session the flow made (its initialize's Mcp-Session-Id). */
  sessionId?: string;
}

/** Response headers as autocannon hands them over: names as the server wrote them. */
export type ResponseHeaders = Record<string, string | string[]>;

export interface FlowStep {
  /** The HTTP method (default POST). */
  method?: 'POST' | 'DELETE';
  headers: Record<string, string>;
  /** Headers that depend on the flow so far (Mcp-Name carrying a task id), replacing `headers` for one request. */
  headersFor?(context: FlowContext): Record<string, string>;
  /** The request body, or undefined when the flow cannot go on (the previous step failed): it starts over. */
  body(id: number, context: FlowContext): string | undefined;
  /** An error message, or undefined when the response is right (may store what the next step needs). */
  check(status: number, body: string, context: FlowContext, headers?: ResponseHeaders): string | undefined;
}

export interface HttpFlow {
  /** What one pass through the chain is: a request, a complete MRTR exchange, or a first round left unanswered. */
  unit: 'request' | 'exchange' | 'first round' | 'listing' | 'task' | 'session';
  steps: FlowStep[];
}

/** The id of the request a response answers (set when the request was built). */
export function requireId(context: FlowContext): number {
  if (context.id === undefined) throw new Error('a response arrived for a request that was never built');
  return context.id;
}

/** A step that must answer with a form question under `key`; keeps the requestState for the next step. */
function askedStep(headers: Record<string, string>, build: (id: number, context: FlowContext) => string | undefined, key: string): FlowStep {
  return {
    headers,
    body: build,
    check(status, body, context) {
      const result = resultOf(status, body, requireId(context));
      if (typeof result === 'string') return result;
      const question = expectFormQuestion(result, key);
      if (typeof question === 'string') return question;
      context.requestState = question.requestState;
      return undefined;
    },
  };
}

export const echoFlow: HttpFlow = {
  unit: 'request',
  steps: [
    {
      headers: toolsCallHeaders(ECHO_TOOL),
      body: toolsCallTemplate(ECHO_TOOL, { text: ECHO_TEXT }),
      check(status, body, context) {
        const result = resultOf(status, body, requireId(context));
        return typeof result === 'string' ? result : expectText(result, { text: ECHO_TEXT });
      },
    },
  ],
};

/** Full parse of 1 in this many tools/list replies (≈10 KB each); the others get cheap substring checks. */
const LIST_PARSE_EVERY = 10;
let listReplies = 0;

export const toolsListFlow: HttpFlow = {
  unit: 'request',
  steps: [
    {
      headers: toolsListHeaders(),
      body: toolsListTemplate(),
      check(status, body, context) {
        const id = requireId(context);
        if (++listReplies % LIST_PARSE_EVERY === 0) {
          const result = resultOf(status, body, id);
          return typeof result === 'string' ? result : expectToolList(result, LISTED_TOOL_COUNT);
        }
        if (status !== 200) return `HTTP ${status}`;
        if (!body.includes(`"id":${id}`) || !body.includes('"resultType":"complete"') || !body.includes('"tools":[')) {
          return 'not a complete tools/list result for this id';
        }
        return undefined;
      },
    },
  ],
};

const confirmArgs = { item: CONFIRM_ITEM };

/** Round 1 of the one-question flow on its own: what the memory workload sends and never retries. */
export const confirmFirstRound: FlowStep = askedStep(toolsCallHeaders(CONFIRM_TOOL), toolsCallTemplate(CONFIRM_TOOL, confirmArgs), CONFIRM_KEY);

export const confirmFlow: HttpFlow = {
  unit: 'exchange',
  steps: [
    confirmFirstRound,
    {
      headers: toolsCallHeaders(CONFIRM_TOOL),
      body: (id, context) =>
        context.requestState === undefined
          ? undefined
          : toolsCallRetryBody(id, CONFIRM_TOOL, confirmArgs, {
              inputResponses: { [CONFIRM_KEY]: accepted({ approve: true }) },
              requestState: context.requestState,
            }),
      check(status, body, context) {
        const result = resultOf(status, body, requireId(context));
        return typeof result === 'string' ? result : expectText(result, { text: confirmedText(CONFIRM_ITEM) });
      },
    },
  ],
};

const wizardArgs = { order: WIZARD_ORDER };

export const wizardFlow: HttpFlow = {
  unit: 'exchange',
  steps: [
    askedStep(toolsCallHeaders(WIZARD_TOOL), toolsCallTemplate(WIZARD_TOOL, wizardArgs), WIZARD_NAME_KEY),
    askedStep(
      toolsCallHeaders(WIZARD_TOOL),
      (id, context) =>
        context.requestState === undefined
          ? undefined
          : toolsCallRetryBody(id, WIZARD_TOOL, wizardArgs, {
              inputResponses: { [WIZARD_NAME_KEY]: accepted({ name: WIZARD_NAME_ANSWER }) },
              requestState: context.requestState,
            }),
      WIZARD_COLOR_KEY,
    ),
    {
      headers: toolsCallHeaders(WIZARD_TOOL),
      // Only the colour is sent: the name and the reservation must come back from the state.
      body: (id, context) =>
        context.requestState === undefined
          ? undefined
          : toolsCallRetryBody(id, WIZARD_TOOL, wizardArgs, {
              inputResponses: { [WIZARD_COLOR_KEY]: accepted({ color: WIZARD_COLOR_ANSWER }) },
              requestState: context.requestState,
            }),
      check(status, body, context) {
        const result = resultOf(status, body, requireId(context));
        // The reservation id differs per flow; everything before it must match.
        const prefix = wizardText(WIZARD_ORDER, WIZARD_NAME_ANSWER, WIZARD_COLOR_ANSWER, `${WIZARD_ORDER}-`).slice(0, -1);
        return typeof result === 'string' ? result : expectText(result, { prefix });
      },
    },
  ],
};
