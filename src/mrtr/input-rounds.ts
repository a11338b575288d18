/**
 * The two ends of a round of a request that may ask for input (`tools/call`,
 * `resources/read`, `prompts/get`): `open` reads the retry before any handler
 * code runs (checks `inputResponses`, opens and verifies `requestState`,
 * redeems a single-use state) and gives the replay interaction the handler
 * asks through; `conclude` turns what the round came to — the handler's
 * result, a hand-made input-required result, or stuck on questions — into the
 * result to send, sealing the state the next round needs.
 */

import { requireCapabilities } from '../protocol/capabilities.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import { isInputRequest } from '../protocol/input-requests.js';
import { isInputRequiredResult, isObject } from '../protocol/guards.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import { Method } from '../protocol/methods.js';
import type { ClientCapabilities, InputRequest, InputRequests, InputRequiredResult, JsonValue, Result } from '../protocol/types.js';
import type { RedemptionStore } from '../stores/redemption-store.js';
import { canonicalJson, digestOf, rememberedDigestOfText } from './digest.js';
import { flowIdOfOldState, newFlowId } from './flow-id.js';
import { AUTHOR_STATE } from './interaction.js';
import { ReplayInteraction, STUCK, type Ledger, type Stuck } from './replay.js';
import { StateTooLargeError, type OpenedState, type StateClaims, type StateRejection, type StateSealer } from './sealed-state.js';

export interface InputRoundsOptions {
  sealer: StateSealer;
  audience: string;
  /** Where single-use flows record redeemed states. */
  redemptions: RedemptionStore;
  log: (message: string) => void;
  /** Called before every seal (e.g. to warn once about a per-process key when another instance could get the retry). */
  beforeSeal?: ((round: Round) => void) | undefined;
}

/** The multi round-trip call a round belongs to, as its sealed state carries it. */
export interface Flow {
  readonly id: string;
  /** This round's number in the flow: 1 for the first request. */
  readonly round: number;
  /** What the previous round sealed to link its span (tracing; opaque here). */
  readonly previous?: string | undefined;
}

/** Who waits for the round's answer: gone (the HTTP client disconnected, a stdio cancel) once its signal is aborted. */
export interface Caller {
  readonly signal: AbortSignal;
}

/** One round in progress: the retry as opened, and the interaction its handler asks through. */
export interface Round {
  readonly request: JsonRpcRequest;
  readonly principal: string;
  /** Checked after each redemption: nothing runs for a caller that went away meanwhile. */
  readonly caller?: Caller | undefined;
  readonly interaction: ReplayInteraction;
  /** Whether the retry may reach another instance (HTTP); over stdio or in process it comes back to this one. */
  readonly acrossInstances: boolean;
  /** The claims the state is bound to; made when first needed (most first rounds never need them). */
  claims?: Promise<StateClaims>;
  /** This round was answered before (it ran a `ctx.once` step): its answer, to send again without running the handler. */
  readonly replayed?: Result;
  /** The retry's state, once this round redeemed it (to keep its answer for a replay). */
  redeemed?: { id: string; expiresAt: number };
  /** The flow; a first round has none until it seals a state (one that needs no input never does). */
  flow?: Flow;
}

/** The one error a client gets for any state that fails; the reason goes to the server log (and metrics) only. */
export class RejectedStateError extends McpError {
  constructor(readonly rejection: StateRejection) {
    super(ErrorCode.InvalidParams, 'Invalid params: requestState is invalid or expired');
  }
}

export function invalidStateError(rejection: StateRejection): McpError {
  return new RejectedStateError(rejection);
}

/** The caller went away while its state was being redeemed: nothing runs for it (nobody would see the answer, and a retry may already be on its way). */
export function callerGoneError(): McpError {
  return McpError.invalidRequest('Request abandoned: the client went away while its requestState was redeemed; nothing ran');
}

/** The flow a state opened for this round continues (a state sealed before flow ids: named after the state itself). */
function continuedFlow(ledger: Ledger, stateId: string): Flow {
  const mark = ledger.f;
  if (Array.isArray(mark) && typeof mark[0] === 'string' && typeof mark[1] === 'number') {
    return { id: mark[0], round: mark[1] + 1, previous: typeof mark[2] === 'string' ? mark[2] : undefined };
  }
  // Its rounds so far are unknown; 2 is the earliest this one can be.
  return { id: flowIdOfOldState(stateId), round: 2 };
}

/** What a redemption needs of an opened state. */
type RedeemableState = Pick<OpenedState<unknown>, 'id' | 'expiresAt' | 'generation'>;

/** Why a redemption was refused, for the log line. */
const REFUSALS = {
  redeemed: 'it was already redeemed',
  generation: 'it was sealed under another generation of the redemption store (the store lost its records since, or the state predates generations), so whether it was redeemed is unknown',
} as const;

export class InputRounds {
  constructor(private readonly options: InputRoundsOptions) {}

  private claims(request: JsonRpcRequest, principal: string): Promise<StateClaims> {
    const params = request.params ?? {};
    const isRead = request.method === Method.ResourcesRead;
    return digestOf(isRead ? {} : (params.arguments ?? {})).then((args) => ({
      method: request.method,
      target: String(isRead ? params.uri : params.name),
      args,
      principal,
      audience: this.options.audience,
    }));
  }

  private claimsOf(round: Round): Promise<StateClaims> {
    round.claims ??= this.claims(round.request, round.principal);
    return round.claims;
  }

  /**
   * Opens a retry (or a first request) before its handler runs. `singleUse`
   * refuses a state presented twice. A request without state opens at once
   * (no promise): most requests are first rounds, and each await costs.
   */
  open(
    request: JsonRpcRequest,
    principal: string | undefined,
    capabilities: ClientCapabilities,
    singleUse: boolean,
    acrossInstances: boolean,
    caller?: Caller,
  ): Round | Promise<Round> {
    const params = request.params ?? {};
    let inputResponses: Record<string, unknown> = {};
    if (params.inputResponses !== undefined) {
      if (!isObject(params.inputResponses)) throw McpError.invalidParams('Invalid params: inputResponses must be an object');
      inputResponses = params.inputResponses;
    }
    if (params.requestState === undefined) return { request, principal: principal ?? '', interaction: new ReplayInteraction({}, inputResponses, capabilities), acrossInstances };
    return this.openState(request, principal, inputResponses, capabilities, singleUse, acrossInstances, caller);
  }

  private async openState(
    request: JsonRpcRequest,
    principal: string | undefined,
    inputResponses: Record<string, unknown>,
    capabilities: ClientCapabilities,
    singleUse: boolean,
    acrossInstances: boolean,
    caller: Caller | undefined,
  ): Promise<Round> {
    const bound = this.claims(request, principal ?? '');
    const claims = await bound;
    const opened = await this.options.sealer.open<Ledger>(request.params!.requestState, claims);
    if (!opened.ok) {
      this.options.log(`Rejected requestState on ${request.method} "${claims.target}": ${opened.reason}`);
      throw invalidStateError(opened.rejection);
    }
    if (singleUse) {
      const refused = await this.redeem(opened.state);
      if (refused) {
        this.options.log(`Rejected requestState on ${request.method} "${claims.target}": ${REFUSALS[refused]}`);
        throw invalidStateError(refused);
      }
    }
    const ledger: Ledger = isObject(opened.state.data) ? opened.state.data : {};
    const flow = continuedFlow(ledger, opened.state.id);
    let state: RedeemableState | undefined;
    if (!singleUse) {
      const replayed = await this.options.redemptions.savedResult?.(opened.state.id);
      if (replayed) return { request, principal: principal ?? '', interaction: new ReplayInteraction(ledger, inputResponses, capabilities), acrossInstances, claims: bound, replayed, flow };
      state = opened.state;
    }
    if (caller?.signal.aborted) {
      this.options.log(`Did not run ${request.method} "${claims.target}": the client went away while its requestState was opened${singleUse ? ' and redeemed' : ''}`);
      throw callerGoneError();
    }
    const round: Round = {
      request,
      principal: principal ?? '',
      caller,
      interaction: new ReplayInteraction(ledger, inputResponses, capabilities, state && (() => this.claimRound(round, state!))),
      acrossInstances,
      claims: bound,
      flow,
    };
    return round;
  }

  /**
   * Redeems a state: undefined when this is its first redemption, else why
   * not. Under the generation it was sealed with, when the store has them: a
   * state sealed before the store lost its records (or with none, sealed
   * before generations) is refused, since whether it was redeemed is unknown.
   */
  private async redeem(state: RedeemableState): Promise<'redeemed' | 'generation' | undefined> {
    const store = this.options.redemptions;
    if (store.generation && state.generation === undefined) return 'generation';
    if (await store.redeemOnce(state.id, state.expiresAt, state.generation)) return undefined;
    // Which it was, for the log: the store knows its generation again after a redemption that found another.
    return store.generation && (await store.generation(state.generation).catch(() => undefined)) !== state.generation ? 'generation' : 'redeemed';
  }

  /**
   * Before a `ctx.once` step first runs in a round, the round's state is
   * redeemed, so the step can never run twice for it (a replay of the round —
   * on any instance sharing the redemption store — gets the answer it gave).
   */
  private async claimRound(round: Round, state: RedeemableState): Promise<void> {
    const refused = await this.redeem(state);
    if (refused === 'generation') {
      this.options.log(`Refused the ctx.once steps of a round on ${round.request.method}: ${REFUSALS.generation}`);
      throw invalidStateError('generation');
    }
    if (refused) {
      this.options.log(`Refused a second run of the ctx.once steps of a round on ${round.request.method}: its state was already redeemed`);
      throw McpError.invalidParams('Invalid params: this round was already answered (it runs a ctx.once step); retry to receive that answer');
    }
    if (round.caller?.signal.aborted) {
      this.options.log(`Did not run the ctx.once steps of a round on ${round.request.method}: the client went away while its state was redeemed`);
      throw callerGoneError();
    }
    round.redeemed = { id: state.id, expiresAt: state.expiresAt };
  }

  /**
   * The result the round answers with (kept for a replay when the round redeemed its state). `link` is what a
   * state sealed now carries so that the next round's span can link to this one (from the observer; opaque here).
   */
  conclude(round: Round, outcome: Result | Stuck, link: string | undefined): Result | Promise<Result> {
    // A plain result of a round that kept nothing to replay is final as it is: no promise.
    if (outcome !== STUCK && !round.redeemed && !isInputRequiredResult(outcome)) return outcome;
    return this.concludeAsync(round, outcome, link);
  }

  private async concludeAsync(round: Round, outcome: Result | Stuck, link: string | undefined): Promise<Result> {
    const result = outcome === STUCK ? await this.askUnanswered(round, link) : isInputRequiredResult(outcome) ? await this.sealHandMade(round, outcome, link) : outcome;
    if (round.redeemed) {
      // The answer goes out even when it cannot be kept: a replay is then refused, never run again.
      await this.options.redemptions.saveResult?.(round.redeemed.id, result, round.redeemed.expiresAt).catch((error: unknown) => {
        this.options.log(`Could not keep the answer of a round that ran a ctx.once step on ${round.request.method} (a replay of it will be refused): ${(error as Error).message}`);
      });
    }
    return result;
  }

  /** The handler is stuck on unanswered questions: send them, with the ledger sealed. */
  private async askUnanswered(round: Round, link: string | undefined): Promise<InputRequiredResult> {
    const inputRequests: Record<string, InputRequest> = {};
    const pending: Record<string, string> = {};
    for (const [key, question] of round.interaction.unanswered) {
      inputRequests[key] = question.request;
      pending[key] = question.digest;
    }
    const requestState = await this.seal(round, round.interaction.nextLedger(round.interaction.state, pending), link);
    return { resultType: 'input_required', inputRequests, requestState };
  }

  /** A handler returned an input-required result by hand: check what it asks, then seal what it keeps. */
  private async sealHandMade(round: Round, result: Result, link: string | undefined): Promise<InputRequiredResult> {
    const requests = result.inputRequests;
    const checked: InputRequests = {};
    const pending: Record<string, string> = {};
    if (requests !== undefined) {
      if (!isObject(requests)) throw new TypeError('inputRequests must be an object of input requests');
      for (const [key, entry] of Object.entries(requests)) {
        if (!isInputRequest(entry)) {
          throw new TypeError(`inputRequests.${key} must be an elicitation/create, sampling/createMessage or roots/list request`);
        }
        checked[key] = entry;
        // A handler that asks by hand returns the same questions every round: each is hashed once.
        pending[key] = await rememberedDigestOfText(canonicalJson(entry));
      }
      requireCapabilities(Object.values(checked), round.interaction.capabilities);
    }
    const marked = (result as { [AUTHOR_STATE]?: JsonValue })[AUTHOR_STATE];
    const authorState = marked !== undefined ? marked : typeof result.requestState === 'string' ? result.requestState : undefined;
    const sealed = await this.seal(round, round.interaction.nextLedger(authorState, pending), link);
    const out: InputRequiredResult = { resultType: 'input_required' };
    if (Object.keys(checked).length > 0) out.inputRequests = checked;
    out.requestState = sealed;
    if (result._meta !== undefined) out._meta = result._meta;
    return out;
  }

  private async seal(round: Round, ledger: Ledger, link: string | undefined): Promise<string> {
    this.options.beforeSeal?.(round);
    // The flow starts with its first sealed state; every later state carries the same id.
    round.flow ??= { id: newFlowId(), round: 1 };
    ledger.f = link === undefined ? [round.flow.id, round.flow.round] : [round.flow.id, round.flow.round, link];
    try {
      // The store's generation (remembered by the store): a state outliving the store's records is never redeemed again.
      const generation = await this.options.redemptions.generation?.();
      return await this.options.sealer.seal(await this.claimsOf(round), ledger, generation);
    } catch (error) {
      if (error instanceof StateTooLargeError) {
        const params = round.request.params ?? {};
        throw new TypeError(`${round.request.method} "${String(params.name ?? params.uri)}": ${error.message}`);
      }
      throw error;
    }
  }
}
