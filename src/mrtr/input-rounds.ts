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
import type { ClientCapabilities, InputRequest, InputRequests, InputRequiredResult, JsonValue, Result } from '../protocol/types.js';
import type { RedemptionStore } from '../stores/redemption-store.js';
import { canonicalJson, digestOf, rememberedDigestOfText } from './digest.js';
import { flowIdOfOldState, newFlowId } from './flow-id.js';
import { AUTHOR_STATE } from './interaction.js';
import { Replayed, ReplayInteraction, STUCK, type Ledger, type Stuck } from './replay.js';
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
  /** Whether it went away, when that can be told without making the signal (see RequestChannel.gone). */
  readonly gone?: boolean | undefined;
}

function isGone(caller: Caller | undefined): boolean {
  return caller !== undefined && (caller.gone ?? caller.signal.aborted);
}

/** A request of a method that may ask, as its rounds need it (the server makes it from the checked params: server/operation.ts). */
export interface RoundRequest {
  readonly method: string;
  /** The name or URI it targets. */
  readonly target: string;
  /** Its arguments; undefined when it has none (a read's URI is its whole target). */
  readonly args: Readonly<Record<string, unknown>> | undefined;
  readonly requestState: string | undefined;
  readonly inputResponses: Readonly<Record<string, unknown>> | undefined;
}

/** One round in progress, as opened: nothing in it changes once it is made. */
export interface Round {
  readonly request: RoundRequest;
  readonly principal: string;
  /** Checked after each redemption: nothing runs for a caller that went away meanwhile. */
  readonly caller?: Caller | undefined;
  /** The interaction its handler asks through (it records what the run answered and ran). */
  readonly interaction: ReplayInteraction;
  /** Whether the retry may reach another instance (HTTP); over stdio or in process it comes back to this one. */
  readonly acrossInstances: boolean;
  /** The claims the state is bound to: made when first needed (most first rounds never need them), then the same promise. */
  readonly claims: () => Promise<StateClaims>;
  /** The state this retry opened, when a `ctx.once` step may redeem it (its answer is then kept for a replay). */
  readonly state?: RedeemableState;
  /** The flow this retry continues; a first round has none (it starts one if it seals a state). */
  readonly flow?: Flow;
}

/** What a round came to: the result to send, and the flow it belongs to (started now when a first round sealed a state). */
export interface Concluded {
  readonly result: Result;
  readonly flow: Flow | undefined;
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

/** No inputResponses: a first round, or a retry that answers nothing. */
const NO_RESPONSES: Readonly<Record<string, unknown>> = Object.freeze({});

/** What a redemption needs of an opened state. */
type RedeemableState = Pick<OpenedState<unknown>, 'id' | 'expiresAt' | 'generation'>;

/** Why a redemption was refused, for the log line. */
const REFUSALS = {
  redeemed: 'it was already redeemed',
  generation: 'it was sealed under another generation of the redemption store (the store lost its records since, or the state predates generations), so whether it was redeemed is unknown',
} as const;

export class InputRounds {
  constructor(private readonly options: InputRoundsOptions) {}

  /** The claims of `request` by `principal`, made on the first call and kept. */
  private claimsFor(request: RoundRequest, principal: string): () => Promise<StateClaims> {
    let made: Promise<StateClaims> | undefined;
    return () =>
      (made ??= digestOf(request.args ?? {}).then((args) => ({ method: request.method, target: request.target, args, principal, audience: this.options.audience })));
  }

  /**
   * Opens a retry (or a first request) before its handler runs. `singleUse`
   * refuses a state presented twice. A request without state opens at once
   * (no promise): most requests are first rounds, and each await costs.
   */
  open(
    request: RoundRequest,
    principal: string | undefined,
    capabilities: ClientCapabilities,
    singleUse: boolean,
    acrossInstances: boolean,
    caller?: Caller,
  ): Round | Promise<Round> {
    const inputResponses = request.inputResponses ?? NO_RESPONSES;
    const claims = this.claimsFor(request, principal ?? '');
    if (request.requestState === undefined) return { request, principal: principal ?? '', interaction: new ReplayInteraction({}, inputResponses, capabilities), acrossInstances, claims };
    return this.openState(request, request.requestState, principal, inputResponses, capabilities, singleUse, acrossInstances, caller, claims);
  }

  private async openState(
    request: RoundRequest,
    requestState: string,
    principal: string | undefined,
    inputResponses: Readonly<Record<string, unknown>>,
    capabilities: ClientCapabilities,
    singleUse: boolean,
    acrossInstances: boolean,
    caller: Caller | undefined,
    bound: () => Promise<StateClaims>,
  ): Promise<Round> {
    const claims = await bound();
    const opened = await this.options.sealer.open<Ledger>(requestState, claims);
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
    // Not yet redeemed unless single use: a `ctx.once` step redeems it when (and if) the run reaches one.
    const state: RedeemableState | undefined = singleUse ? undefined : opened.state;
    if (isGone(caller)) {
      this.options.log(`Did not run ${request.method} "${claims.target}": the client went away while its requestState was opened${singleUse ? ' and redeemed' : ''}`);
      throw callerGoneError();
    }
    const claimRound = state && ((): Promise<Result | undefined> => this.claimRound(request.method, state, caller));
    return { request, principal: principal ?? '', caller, interaction: new ReplayInteraction(ledger, inputResponses, capabilities, claimRound), acrossInstances, claims: bound, state, flow };
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
   * redeemed, so the step can never run twice for it. A replay of the round —
   * on any instance sharing the redemption store — reaches the step, finds the
   * state redeemed, and gets the answer the round gave (returned here): the
   * kept answer is read only then, not on every retry.
   */
  private async claimRound(method: string, state: RedeemableState, caller: Caller | undefined): Promise<Result | undefined> {
    const refused = await this.redeem(state);
    if (refused === 'generation') {
      this.options.log(`Refused the ctx.once steps of a round on ${method}: ${REFUSALS.generation}`);
      throw invalidStateError('generation');
    }
    if (refused) {
      const answered = await this.options.redemptions.savedResult?.(state.id);
      if (answered) return answered;
      this.options.log(`Refused a second run of the ctx.once steps of a round on ${method}: its state was already redeemed`);
      throw McpError.invalidParams('Invalid params: this round was already answered (it runs a ctx.once step); retry to receive that answer');
    }
    if (isGone(caller)) {
      this.options.log(`Did not run the ctx.once steps of a round on ${method}: the client went away while its state was redeemed`);
      throw callerGoneError();
    }
    return undefined;
  }

  /**
   * What the round answers with (kept for a replay when a `ctx.once` step redeemed the round's state). `link` is
   * what a state sealed now carries so that the next round's span can link to this one (from the observer; opaque here).
   */
  conclude(round: Round, outcome: Result | Stuck | Replayed, link: string | undefined): Concluded | Promise<Concluded> {
    // A round answered before answers as it did then: nothing sealed anew, nothing kept again.
    if (outcome instanceof Replayed) return { result: outcome.result, flow: round.flow };
    // A plain result of a round that kept nothing to replay is final as it is: no promise.
    if (outcome !== STUCK && !round.interaction.claimedRound && !isInputRequiredResult(outcome)) return { result: outcome, flow: round.flow };
    return this.concludeAsync(round, outcome, link);
  }

  private async concludeAsync(round: Round, outcome: Result | Stuck, link: string | undefined): Promise<Concluded> {
    if (outcome !== STUCK && !isInputRequiredResult(outcome)) {
      await this.keepAnswer(round, outcome);
      return { result: outcome, flow: round.flow };
    }
    // The flow starts with its first sealed state; every later state carries the same id.
    const flow = round.flow ?? { id: newFlowId(), round: 1 };
    const result = outcome === STUCK ? await this.askUnanswered(round, flow, link) : await this.sealHandMade(round, outcome, flow, link);
    if (round.interaction.claimedRound) await this.keepAnswer(round, result);
    return { result, flow };
  }

  /** Keeps the answer of a round whose `ctx.once` step redeemed its state, for a replay of it. */
  private async keepAnswer(round: Round, result: Result): Promise<void> {
    if (!round.state) return;
    const { id, expiresAt } = round.state;
    // The answer goes out even when it cannot be kept: a replay is then refused, never run again.
    await this.options.redemptions.saveResult?.(id, result, expiresAt).catch((error: unknown) => {
      this.options.log(`Could not keep the answer of a round that ran a ctx.once step on ${round.request.method} (a replay of it will be refused): ${(error as Error).message}`);
    });
  }

  /** The handler is stuck on unanswered questions: send them, with the ledger sealed. */
  private async askUnanswered(round: Round, flow: Flow, link: string | undefined): Promise<InputRequiredResult> {
    const inputRequests: Record<string, InputRequest> = {};
    const pending: Record<string, string> = {};
    for (const [key, question] of round.interaction.unanswered) {
      inputRequests[key] = question.request;
      pending[key] = question.digest;
    }
    const requestState = await this.seal(round, round.interaction.nextLedger(round.interaction.state, pending), flow, link);
    return { resultType: 'input_required', inputRequests, requestState };
  }

  /** A handler returned an input-required result by hand: check what it asks, then seal what it keeps. */
  private async sealHandMade(round: Round, result: Result, flow: Flow, link: string | undefined): Promise<InputRequiredResult> {
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
    const sealed = await this.seal(round, round.interaction.nextLedger(authorState, pending), flow, link);
    const out: InputRequiredResult = { resultType: 'input_required' };
    if (Object.keys(checked).length > 0) out.inputRequests = checked;
    out.requestState = sealed;
    if (result._meta !== undefined) out._meta = result._meta;
    return out;
  }

  private async seal(round: Round, ledger: Ledger, flow: Flow, link: string | undefined): Promise<string> {
    this.options.beforeSeal?.(round);
    ledger.f = link === undefined ? [flow.id, flow.round] : [flow.id, flow.round, link];
    try {
      // The store's generation (remembered by the store): a state outliving the store's records is never redeemed again.
      const generation = await this.options.redemptions.generation?.();
      return await this.options.sealer.seal(await round.claims(), ledger, generation);
    } catch (error) {
      if (error instanceof StateTooLargeError) throw new TypeError(`${round.request.method} "${round.request.target}": ${error.message}`);
      throw error;
    }
  }
}
