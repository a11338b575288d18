/**
 * A server under test, in memory: requests go through the real pipeline
 * (`handleRequest`, the seam every transport uses) as JSON, as on a wire; a
 * flow is run to its end with scripted answers per question key; states can
 * be taken from a round, altered, replayed, or moved to another tool,
 * arguments, principal or instance, and checked refused.
 *
 * Give the server as a factory `(options) => McpServer` and the kit controls
 * what it needs: the key ring, the audience, the clock, a redemption store
 * shared by every instance it makes, and a logger it captures. A server
 * object works too, as it is (its own keys and clock; no second instance).
 */

import type { McpServer, McpServerOptions } from '../mcp-server.js';
import { generateStateKey, KeyRing } from '../mrtr/keyring.js';
import type { StateRejection } from '../mrtr/sealed-state.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from '../protocol/meta.js';
import { Method } from '../protocol/methods.js';
import type { CallToolResult, ClientCapabilities, GetPromptResult, InputRequests, ReadResourceResult, RequestId, Result } from '../protocol/types.js';
import { LATEST_PROTOCOL_VERSION } from '../protocol/versions.js';
import type { RequestLogEntry } from '../server/request-log.js';
import type { ServerLogger } from '../server/options.js';
import { MemoryRedemptionStore, type RedemptionStore } from '../stores/redemption-store.js';
import { Run, type Exchange, type LoggedLine, type PendingFlow, type RoundRecord } from './exchange.js';
import { Answerer, type Script } from './scripted-answers.js';
import { assertRefused } from './state-attacks.js';
import { TestClock } from './test-clock.js';

export type ServerFactory = (options: McpServerOptions) => McpServer;

/** What each request declares by default: every kind of question can be asked. */
export const ALL_CAPABILITIES: ClientCapabilities = { elicitation: { form: {}, url: {} }, sampling: { tools: {} }, roots: {} };

export interface TestServerOptions {
  /** The state key ring (factory only; default: a new key for this kit). */
  keys?: KeyRing | string;
  /** Who states are issued by (factory only; default `tessera-test`). */
  audience?: string;
  /** The clock the state is sealed and checked by (factory only; default a TestClock). */
  clock?: TestClock;
  /** What each request declares it can be asked (default ALL_CAPABILITIES). */
  capabilities?: ClientCapabilities;
  /** Who calls (default anonymous). */
  principal?: string;
  /** More server options for the factory (state options here are kept, the kit's win). */
  server?: McpServerOptions;
}

export interface CallOptions {
  principal?: string;
  capabilities?: ClientCapabilities;
  /** More `_meta` for every request (e.g. a log level, a progress token). */
  meta?: Record<string, unknown>;
  /** Most rounds before the kit gives up on a flow (default 10). */
  maxRounds?: number;
}

/** How a retry differs from the round it retries: another tool, arguments, URI, method, caller or state. */
export interface RetryChange {
  name?: string;
  arguments?: Record<string, unknown>;
  uri?: string;
  method?: string;
  principal?: string;
  requestState?: string;
  capabilities?: ClientCapabilities;
}

const CLIENT_INFO = { name: 'tessera-testing', version: '0' };

/** Through JSON and back: what a wire would do to it. */
function wire<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** What a kit's instances share (`secondInstance` passes it on): the clock and the redemption store. */
export interface SharedTestState {
  clock: TestClock;
  redemptions: RedemptionStore;
}

let instances = 0;

export class TestServer {
  readonly server: McpServer;
  /** The clock the kit's servers seal and check states by (factory only). */
  readonly clock: TestClock;
  /** The key ring this instance seals with (factory only). */
  readonly keys: KeyRing | undefined;
  /** What the server logged (factory only: the kit gives it a logger that keeps lines here). */
  readonly serverLog: LoggedLine[] = [];
  private readonly factory: ServerFactory | undefined;
  private readonly shared: SharedTestState;
  private readonly entries = new Map<RequestId, RequestLogEntry>();
  private readonly idPrefix = `t${++instances}-`;
  private nextId = 1;

  constructor(
    source: McpServer | ServerFactory,
    private readonly options: TestServerOptions = {},
    shared?: SharedTestState,
  ) {
    if (shared) {
      this.shared = shared;
    } else {
      const clock = options.clock ?? new TestClock();
      this.shared = { clock, redemptions: new MemoryRedemptionStore(clock.now) };
    }
    this.clock = this.shared.clock;
    if (typeof source === 'function') {
      this.factory = source;
      this.keys = typeof options.keys === 'string' ? KeyRing.parse(options.keys) : (options.keys ?? KeyRing.parse(generateStateKey('test')));
      const base = options.server ?? {};
      const logger: ServerLogger = base.logger ?? {
        error: (message, detail) => this.serverLog.push({ level: 'error', message, detail }),
        warn: (message, detail) => this.serverLog.push({ level: 'warn', message, detail }),
      };
      this.server = source({
        ...base,
        logger,
        state: { ...base.state, keys: this.keys, audience: options.audience ?? 'tessera-test', clock: this.clock.now, redemptions: this.shared.redemptions },
      });
    } else {
      this.factory = undefined;
      this.keys = undefined;
      this.server = source;
    }
    this.server.logRequests({ write: (entry) => this.entries.set(entry.requestId, entry) });
  }

  /**
   * Another instance of the same server, as behind a load balancer: the same
   * clock and redemption store, and the same key ring (`'same'`, default) or
   * another (`'other'`, or the ring to use). Needs a factory.
   */
  instance(options: { keys?: 'same' | 'other' | KeyRing | string; audience?: string } = {}): TestServer {
    if (!this.factory) throw new TypeError('A second instance needs the server as a factory: testServer((options) => new McpServer(info, options))');
    const keys = options.keys === undefined || options.keys === 'same' ? this.keys : options.keys === 'other' ? KeyRing.parse(generateStateKey('other')) : options.keys;
    return new TestServer(this.factory, { ...this.options, ...(keys ? { keys } : {}), ...(options.audience ? { audience: options.audience } : {}) }, this.shared);
  }

  /** Sends one request (with the required `_meta`) and returns what came back. */
  async send(method: string, params: Record<string, unknown> = {}, options: CallOptions = {}): Promise<Exchange> {
    const capabilities = options.capabilities ?? this.options.capabilities ?? ALL_CAPABILITIES;
    const principal = options.principal ?? this.options.principal;
    const meta = { [META_PROTOCOL_VERSION]: LATEST_PROTOCOL_VERSION, [META_CLIENT_INFO]: CLIENT_INFO, [META_CLIENT_CAPABILITIES]: capabilities, ...options.meta };
    const request = wire<JsonRpcRequest>({ jsonrpc: '2.0', id: `${this.idPrefix}${this.nextId++}`, method, params: { ...params, _meta: meta } });
    const notifications: JsonRpcNotification[] = [];
    const reply = await this.server.handleRequest(request, {
      signal: new AbortController().signal,
      canNotify: true,
      send: (message) => {
        if (!('id' in message)) notifications.push(wire(message));
      },
      ...(principal !== undefined ? { principal } : {}),
    });
    const response = wire<JsonRpcResponse>(reply.message);
    const log = this.entries.get(request.id);
    this.entries.delete(request.id);
    const result = 'result' in response ? response.result : undefined;
    const exchange: Exchange = { request, response, notifications, log, result, error: 'error' in response ? response.error : undefined, pending: undefined };
    if (result?.resultType === 'input_required') {
      const { _meta, inputResponses: _answers, requestState: _state, ...original } = request.params ?? {};
      exchange.pending = {
        method,
        params: original,
        round: log?.round ?? 1,
        inputRequests: (result.inputRequests as InputRequests | undefined) ?? {},
        requestState: typeof result.requestState === 'string' ? result.requestState : undefined,
        principal,
        capabilities: options.capabilities ?? this.options.capabilities,
      };
    }
    return exchange;
  }

  /** Runs a request that may ask to its end, answering each round from `script`. */
  async run<R extends Result = Result>(method: string, params: Record<string, unknown>, script: Script = {}, options: CallOptions = {}): Promise<Run<R>> {
    const answerer = new Answerer(script);
    const transcript: RoundRecord[] = [];
    const logged = this.serverLog.length;
    const maxRounds = options.maxRounds ?? 10;
    let answers: Record<string, unknown> = {};
    let state: string | undefined;
    for (let round = 1; ; round++) {
      if (round > maxRounds) throw new Error(`${method} still asked after ${maxRounds} rounds (maxRounds)`);
      const sent: Record<string, unknown> = { ...params };
      if (round > 1) sent.inputResponses = answers;
      if (state !== undefined) sent.requestState = state;
      const exchange = await this.send(method, sent, options);
      const pending = exchange.pending;
      transcript.push({
        round,
        answers,
        outcome: exchange.error ? 'error' : String(exchange.result?.resultType ?? 'complete'),
        questions: pending?.inputRequests ?? {},
        stateBytes: exchange.log?.stateBytes,
        onceSteps: exchange.log?.onceSteps ?? [],
        flowId: exchange.log?.flowId,
        exchange,
      });
      if (!pending) return new Run<R>(transcript, this.serverLog.slice(logged));
      answers = await answerer.answer(pending.inputRequests, round);
      state = pending.requestState;
    }
  }

  callTool(name: string, args: Record<string, unknown> = {}, script?: Script, options?: CallOptions): Promise<Run<CallToolResult>> {
    return this.run<CallToolResult>(Method.ToolsCall, { name, arguments: args }, script, options);
  }

  getPrompt(name: string, args: Record<string, string> = {}, script?: Script, options?: CallOptions): Promise<Run<GetPromptResult>> {
    return this.run<GetPromptResult>(Method.PromptsGet, { name, arguments: args }, script, options);
  }

  readResource(uri: string, script?: Script, options?: CallOptions): Promise<Run<ReadResourceResult>> {
    return this.run<ReadResourceResult>(Method.ResourcesRead, { uri }, script, options);
  }

  /** Sends a first request that must ask, and returns its round to answer or attack. */
  async start(method: string, params: Record<string, unknown>, options: CallOptions = {}): Promise<PendingFlow> {
    const exchange = await this.send(method, params, options);
    if (!exchange.pending) {
      const got = exchange.error ? `error ${exchange.error.code} "${exchange.error.message}"` : 'a complete result';
      throw new Error(`${method} did not ask for input (got ${got})`);
    }
    return exchange.pending;
  }

  /**
   * Retries `pending` with answers from `script` (to its questions), the same
   * params and exact state, on this instance — or changed as `change` says.
   */
  async retry(pending: PendingFlow, script: Script = {}, change: RetryChange = {}): Promise<Exchange> {
    const answers = await new Answerer(script).answer(pending.inputRequests, pending.round);
    const params: Record<string, unknown> = { ...pending.params, inputResponses: answers };
    if (change.name !== undefined) params.name = change.name;
    if (change.arguments !== undefined) params.arguments = change.arguments;
    if (change.uri !== undefined) params.uri = change.uri;
    const state = change.requestState ?? pending.requestState;
    if (state !== undefined) params.requestState = state;
    const principal = change.principal ?? pending.principal;
    const capabilities = change.capabilities ?? pending.capabilities;
    return this.send(change.method ?? pending.method, params, { ...(principal !== undefined ? { principal } : {}), ...(capabilities ? { capabilities } : {}) });
  }

  /** Sends the same retry twice (a client re-sending after a broken stream, or an attacker): both exchanges. */
  async replay(pending: PendingFlow, script: Script = {}, change: RetryChange = {}): Promise<[Exchange, Exchange]> {
    const first = await this.retry(pending, script, change);
    const second = await this.retry(pending, script, change);
    return [first, second];
  }

  /** Resolves once `exchange` is the fixed refusal of a state (for `reason`, when given); rejects otherwise. */
  async expectRefused(exchange: Exchange | Promise<Exchange>, reason?: StateRejection): Promise<Exchange> {
    const settled = await exchange;
    assertRefused(settled, reason);
    return settled;
  }

  close(): void {
    this.server.close();
  }
}

/** A server under test: see TestServer. */
export function testServer(source: McpServer | ServerFactory, options?: TestServerOptions): TestServer {
  return new TestServer(source, options);
}
