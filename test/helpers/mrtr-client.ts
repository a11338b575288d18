/**
 * A scripted MRTR client over real HTTP: sends a request, answers each
 * `inputRequests` entry with a scripted answer chosen by its key, and retries
 * with a new id, the same method and params, `inputResponses` keyed like the
 * requests and the exact `requestState` — until the result is complete, an
 * error, or the round cap. Every retry it builds is checked against the client
 * rules of the MRTR checklist (§G) and the official schema before it is sent;
 * every input-required result it receives is checked against the
 * capabilities that round declared (checklist 22–29, 65).
 */

import { expect } from 'vitest';
import { meta, rpc, type RpcReply } from './http.js';
import { assertClientRequest, assertValid } from './wire-schema.js';

export type MrtrMethod = 'tools/call' | 'prompts/get' | 'resources/read';

/** An embedded request as it arrives in `inputRequests`. */
export interface WireInputRequest {
  method: string;
  params?: Record<string, unknown>;
}

export type Answerer = (request: WireInputRequest, round: number, key: string) => unknown;
/** One function for every key, or answers (values or functions) by key. */
export type Script = Answerer | Record<string, unknown>;

export interface FlowOptions {
  /** Where each round goes; a function lets rounds land on different server instances. */
  url: string | ((round: number) => string);
  method?: MrtrMethod;
  /** The original params (`name` + `arguments`, or `uri`), repeated unchanged on every retry. */
  params: Record<string, unknown>;
  /** `clientCapabilities` declared on each round (default: none). */
  capabilities?: Record<string, unknown> | ((round: number) => Record<string, unknown>);
  answers?: Script;
  headers?: Record<string, string>;
  /** Round cap (checklist 81); exceeding it fails the flow. Default 10. */
  maxRounds?: number;
}

export interface Round {
  /** 1-based. */
  index: number;
  /** The JSON-RPC request as sent. */
  sent: { jsonrpc: '2.0'; id: string; method: string; params: Record<string, unknown> };
  reply: RpcReply;
  result: Record<string, unknown> | undefined;
  error: { code: number; message: string; data?: unknown } | undefined;
}

export interface FlowOutcome {
  rounds: Round[];
  last: Round;
  /** The final complete result, when the flow completed. */
  result: Record<string, unknown> | undefined;
  error: { code: number; message: string; data?: unknown } | undefined;
  /** The input-required results, in order. */
  inputRequired: Record<string, unknown>[];
}

let counter = 0;
/** Ids unique across every flow of the test process (checklist 72–73). */
function freshId(): string {
  counter += 1;
  return `mrtr-client-${process.pid}-${counter}`;
}

const ANSWER_DEF: Record<string, string> = {
  'elicitation/create': 'ElicitResult',
  'sampling/createMessage': 'CreateMessageResult',
  'roots/list': 'ListRootsResult',
};

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What a request may be asked given the declared capabilities — written from the spec (§7.4, §8), independently of src. */
export function allowedBy(request: WireInputRequest, capabilities: Record<string, unknown>): boolean {
  const params = request.params ?? {};
  switch (request.method) {
    case 'elicitation/create': {
      const elicitation = capabilities.elicitation;
      if (!isObject(elicitation)) return false;
      const hasForm = 'form' in elicitation;
      const hasUrl = 'url' in elicitation;
      if (params.mode === 'url') return hasUrl;
      // `elicitation: {}` is form only; `{ url }` alone excludes forms.
      return hasForm || !hasUrl;
    }
    case 'sampling/createMessage': {
      const sampling = capabilities.sampling;
      if (!isObject(sampling)) return false;
      if (('tools' in params || 'toolChoice' in params) && !isObject(sampling.tools)) return false;
      return true;
    }
    case 'roots/list':
      return isObject(capabilities.roots);
    default:
      return false;
  }
}

async function answerFor(script: Script | undefined, key: string, request: WireInputRequest, round: number): Promise<unknown> {
  let answer: unknown;
  if (typeof script === 'function') answer = await script(request, round, key);
  else if (script && Object.hasOwn(script, key)) {
    const entry = script[key];
    answer = typeof entry === 'function' ? await (entry as Answerer)(request, round, key) : entry;
  }
  if (answer === undefined) throw new Error(`The script has no answer for "${key}" (round ${round}); a client must answer every request before retrying`);
  return answer;
}

/** The client rules on a retry (checklist 66, 68, 70, 72, 74, 75, 77, 78). */
function checkRetry(sent: Round['sent'], previous: Round, original: Record<string, unknown>, usedIds: Set<string>): void {
  expect(usedIds.has(sent.id), 'a retry uses a new JSON-RPC id').toBe(false);
  expect(sent.method, 'a retry repeats the method').toBe(previous.sent.method);
  for (const field of ['name', 'arguments', 'uri']) {
    expect(sent.params[field], `a retry repeats params.${field}`).toEqual(original[field]);
  }
  const result = previous.result!;
  if (Object.hasOwn(result, 'requestState')) {
    expect(typeof sent.params.requestState).toBe('string');
    expect(sent.params.requestState === result.requestState, 'requestState is echoed byte for byte').toBe(true);
  } else {
    expect(Object.hasOwn(sent.params, 'requestState'), 'no requestState was given, so none is sent').toBe(false);
  }
  const asked = isObject(result.inputRequests) ? Object.keys(result.inputRequests).sort() : [];
  if (asked.length === 0) expect(Object.hasOwn(sent.params, 'inputResponses'), 'nothing was asked, so nothing is answered').toBe(false);
  else expect(Object.keys(sent.params.inputResponses as object).sort(), 'exactly the keys asked are answered').toEqual(asked);
  const metaSent = sent.params._meta as Record<string, unknown>;
  expect(metaSent['io.modelcontextprotocol/protocolVersion']).toBeTypeOf('string');
  expect(metaSent['io.modelcontextprotocol/clientCapabilities']).toBeTypeOf('object');
}

/** What a client checks on an input-required result before fulfilling it (checklist 2, 4, 5, 65). */
function checkInputRequired(result: Record<string, unknown>, capabilities: Record<string, unknown>): void {
  expect(Object.hasOwn(result, 'inputRequests') || Object.hasOwn(result, 'requestState'), 'inputRequests or requestState').toBe(true);
  if (result.inputRequests === undefined) return;
  expect(isObject(result.inputRequests)).toBe(true);
  for (const [key, entry] of Object.entries(result.inputRequests as Record<string, WireInputRequest>)) {
    expect(Object.keys(ANSWER_DEF), `inputRequests.${key}.method`).toContain(entry.method);
    expect(entry, `inputRequests.${key} carries no envelope`).not.toHaveProperty('id');
    expect(allowedBy(entry, capabilities), `inputRequests.${key} (${entry.method}) is allowed by ${JSON.stringify(capabilities)}`).toBe(true);
  }
}

/** Runs one MRTR flow to its end. */
export async function runFlow(options: FlowOptions): Promise<FlowOutcome> {
  const method = options.method ?? 'tools/call';
  const maxRounds = options.maxRounds ?? 10;
  const original = structuredClone(options.params);
  const rounds: Round[] = [];
  const usedIds = new Set<string>();
  const inputRequired: Record<string, unknown>[] = [];
  for (let index = 1; index <= maxRounds; index++) {
    const capabilities = typeof options.capabilities === 'function' ? options.capabilities(index) : (options.capabilities ?? {});
    const params: Record<string, unknown> = {
      ...structuredClone(original),
      _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': capabilities }),
    };
    const previous = rounds[rounds.length - 1];
    if (previous) {
      const result = previous.result!;
      if (Object.hasOwn(result, 'requestState')) params.requestState = result.requestState;
      if (isObject(result.inputRequests) && Object.keys(result.inputRequests).length > 0) {
        const responses: Record<string, unknown> = {};
        for (const [key, request] of Object.entries(result.inputRequests as Record<string, WireInputRequest>)) {
          const answer = await answerFor(options.answers, key, request, previous.index);
          assertValid(ANSWER_DEF[request.method]!, answer);
          responses[key] = answer;
        }
        params.inputResponses = responses;
      }
    }
    const sent: Round['sent'] = { jsonrpc: '2.0', id: freshId(), method, params };
    if (previous) checkRetry(sent, previous, original, usedIds);
    assertClientRequest(sent);
    usedIds.add(sent.id);
    const url = typeof options.url === 'function' ? options.url(index) : options.url;
    const reply = await rpc(url, method, params, { id: sent.id, headers: options.headers });
    expect(reply.response, `round ${index} got a response`).toBeDefined();
    expect(reply.response!.id, 'the response carries the request id').toBe(sent.id);
    const round: Round = {
      index,
      sent,
      reply,
      result: reply.response!.result as Record<string, unknown> | undefined,
      error: reply.response!.error as Round['error'],
    };
    rounds.push(round);
    if (round.error || round.result?.resultType !== 'input_required') {
      return { rounds, last: round, result: round.error ? undefined : round.result, error: round.error, inputRequired };
    }
    checkInputRequired(round.result, capabilities);
    inputRequired.push(round.result);
  }
  throw new Error(`The flow did not finish within ${maxRounds} rounds`);
}

/** Text of a complete tools/call result, for assertions. */
export function toolText(result: Record<string, unknown> | undefined): string {
  const content = (result?.content ?? []) as Array<{ type: string; text?: string }>;
  return content
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('\n');
}

/** An accepted form answer. */
export function accept(content: Record<string, unknown>): { action: 'accept'; content: Record<string, unknown> } {
  return { action: 'accept', content };
}
