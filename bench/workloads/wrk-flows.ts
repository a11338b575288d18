/**
 * The HTTP flows as wrk runs them (bench/wrk/flows.lua): each step's request
 * as a template split around the JSON-RPC id and, for retries, the
 * requestState, and the substrings its reply must (and must not) contain.
 * The same requests and expectations as http-flows.ts, in a form Lua can use
 * without a JSON parser.
 */

import {
  CONFIRM_ITEM,
  CONFIRM_KEY,
  CONFIRM_TOOL,
  confirmedText,
  ECHO_TEXT,
  ECHO_TOOL,
  WIZARD_COLOR_ANSWER,
  WIZARD_COLOR_KEY,
  WIZARD_NAME_ANSWER,
  WIZARD_NAME_KEY,
  WIZARD_ORDER,
  WIZARD_TOOL,
  wizardText,
} from '../tools/catalog.js';
import { accepted, toolsCallHeaders, toolsCallRetryBody, toolsCallTemplate } from '../wire/requests.js';

export interface WrkStep {
  headers: Record<string, string>;
  /** body = head .. id .. tail (first step), or head .. id .. mid .. requestState .. tail (retries). */
  head: string;
  mid: string;
  tail: string;
  expect: string[];
  refuse: string[];
}

export interface WrkFlow {
  path: string;
  steps: WrkStep[];
}

const ID = 918273645;
const STATE = '@@REQUEST_STATE@@';

function split(body: string, withState: boolean): Pick<WrkStep, 'head' | 'mid' | 'tail'> {
  const [head, rest, ...more] = body.split(String(ID));
  if (head === undefined || rest === undefined || more.length > 0) throw new Error('the id placeholder must occur once');
  if (!withState) return { head, mid: '', tail: rest };
  const [mid, tail, ...extra] = rest.split(STATE);
  if (mid === undefined || tail === undefined || extra.length > 0) throw new Error('the state placeholder must occur once');
  return { head, mid, tail };
}

const COMPLETE = '"resultType":"complete"';
const FAILED = ['"isError":true'];

function asked(key: string): string[] {
  return ['"resultType":"input_required"', `"inputRequests":{"${key}":{`, '"method":"elicitation/create"', '"mode":"form"', '"requestState":"'];
}

function firstStep(tool: string, args: Record<string, unknown>, expect: string[]): WrkStep {
  return { headers: toolsCallHeaders(tool), ...split(toolsCallTemplate(tool, args)(ID), false), expect, refuse: FAILED };
}

function retryStep(tool: string, args: Record<string, unknown>, inputResponses: Record<string, unknown>, expect: string[]): WrkStep {
  const body = toolsCallRetryBody(ID, tool, args, { inputResponses, requestState: STATE });
  return { headers: toolsCallHeaders(tool), ...split(body, true), expect, refuse: FAILED };
}

const text = (value: string): string => `"text":${JSON.stringify(value)}`;

export function wrkFlow(name: 'echo' | 'confirm' | 'wizard', path: string): WrkFlow {
  switch (name) {
    case 'echo':
      return { path, steps: [firstStep(ECHO_TOOL, { text: ECHO_TEXT }, [COMPLETE, text(ECHO_TEXT)])] };
    case 'confirm': {
      const args = { item: CONFIRM_ITEM };
      return {
        path,
        steps: [
          firstStep(CONFIRM_TOOL, args, asked(CONFIRM_KEY)),
          retryStep(CONFIRM_TOOL, args, { [CONFIRM_KEY]: accepted({ approve: true }) }, [COMPLETE, text(confirmedText(CONFIRM_ITEM))]),
        ],
      };
    }
    case 'wizard': {
      const args = { order: WIZARD_ORDER };
      // The reservation id differs per flow; everything before it must match (and the name came back from the state).
      const prefix = JSON.stringify(wizardText(WIZARD_ORDER, WIZARD_NAME_ANSWER, WIZARD_COLOR_ANSWER, `${WIZARD_ORDER}-`)).slice(0, -2);
      return {
        path,
        steps: [
          firstStep(WIZARD_TOOL, args, asked(WIZARD_NAME_KEY)),
          retryStep(WIZARD_TOOL, args, { [WIZARD_NAME_KEY]: accepted({ name: WIZARD_NAME_ANSWER }) }, asked(WIZARD_COLOR_KEY)),
          retryStep(WIZARD_TOOL, args, { [WIZARD_COLOR_KEY]: accepted({ color: WIZARD_COLOR_ANSWER }) }, [COMPLETE, `"text":${prefix}`]),
        ],
      };
    }
  }
}

/** A Lua literal of a JSON-like value (ASCII strings: JSON's escapes are Lua's too). */
export function luaLiteral(value: unknown): string {
  if (typeof value === 'string') {
    if (!/^[\x20-\x7e]*$/.test(value)) throw new Error(`not printable ASCII: ${value}`);
    return JSON.stringify(value);
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `{${value.map(luaLiteral).join(', ')}}`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value).map(([k, v]) => `[${luaLiteral(k)}] = ${luaLiteral(v)}`).join(', ')}}`;
  }
  throw new Error(`no Lua literal for ${String(value)}`);
}
