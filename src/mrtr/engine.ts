/**
 * Runs one round of a request that may ask for input (`tools/call`,
 * `resources/read`, `prompts/get`): opens and checks the incoming state before
 * any handler code runs, runs the handler with a replay interaction, and turns
 * a handler stuck on unanswered questions (or a hand-made input-required
 * result) into an `InputRequiredResult` with freshly sealed state.
 */

import { McpError } from '../protocol/errors.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import { Method } from '../protocol/methods.js';
import type { ClientCapabilities, InputRequest, JsonValue } from '../protocol/types.js';
import { mergeCapabilities, missingFor } from '../protocol/capabilities.js';
import { digestOf } from './digest.js';
import { AUTHOR_STATE, type Interaction } from './interaction.js';
import type { RedemptionStore } from './redemption-store.js';
import { ReplayInteraction, type Ledger } from './replay.js';
import { StateTooLargeError, type StateClaims, type StateSealer } from './sealed-state.js';

/** What the engine needs from the request's context. */
export interface RoundHost {
  readonly clientCapabilities: ClientCapabilities;
  readonly principal: string | undefined;
  /** Installs the interaction handlers will ask through, or a factory that makes it on first use. */
  attach(interaction: Interaction | (() => Interaction)): void;
  /** The round ended without the handler: abort its signal so pending work stops. */
  endRound(): void;
}

/** Runs the rounds of a request that may ask for input; each era has its own (replay for 2026-07-28, live for 2025-era sessions). */
export interface RoundRunner {
  run(request: JsonRpcRequest, host: RoundHost, invoke: () => Promise<Record<string, unknown>>, singleUse?: boolean): Promise<Record<string, unknown>>;
}

export interface EngineOptions {
  sealer: StateSealer;
  audience: string;
  /** Where single-use flows record redeemed states; undefined turns single use off. */
  redemptions: RedemptionStore | undefined;
  log: (message: string) => void;
  /** Called before every seal (e.g. to warn once about a per-process key). */
  beforeSeal?: (() => void) | undefined;
}

/** The one error a client gets for any state that fails; the reason goes to the server log only. */
export function invalidStateError(): McpError {
  return McpError.invalidParams('Invalid params: requestState is invalid or expired');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const INPUT_METHODS = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list']);

export class InteractionEngine implements RoundRunner {
  constructor(private readonly options: EngineOptions) {}

  private claims(request: JsonRpcRequest, principal: string | undefined): StateClaims {
    const params = request.params ?? {};
    const isRead = request.method === Method.ResourcesRead;
    return {
      method: request.method,
      target: String(isRead ? params.uri : params.name),
      args: digestOf(isRead ? {} : (params.arguments ?? {})),
      principal: principal ?? '',
      audience: this.options.audience,
    };
  }

  /**
   * Runs `invoke` (the handler) for one round. `singleUse` refuses a state
   * presented a second time.
   */
  async run(
    request: JsonRpcRequest,
    host: RoundHost,
    invoke: () => Promise<Record<string, unknown>>,
    singleUse = false,
  ): Promise<Record<string, unknown>> {
    const params = request.params ?? {};
    let inputResponses: Record<string, unknown> = {};
    if (params.inputResponses !== undefined) {
      if (!isObject(params.inputResponses)) throw McpError.invalidParams('Invalid params: inputResponses must be an object');
      inputResponses = params.inputResponses;
    }
    let claims: StateClaims | undefined;
    let ledger: Ledger = {};
    if (params.requestState !== undefined) {
      claims = this.claims(request, host.principal);
      const opened = this.options.sealer.open<Ledger>(params.requestState, claims);
      if (!opened.ok) {
        this.options.log(`Rejected requestState on ${request.method} "${claims.target}": ${opened.reason}`);
        throw invalidStateError();
      }
      if (singleUse) {
        if (!this.options.redemptions) throw new TypeError('Single-use state needs a redemption store');
        if (!(await this.options.redemptions.redeem(opened.state.id, opened.state.expiresAt))) {
          this.options.log(`Rejected requestState on ${request.method} "${claims.target}": it was already redeemed`);
          throw invalidStateError();
        }
      }
      ledger = isObject(opened.state.data) ? (opened.state.data as Ledger) : {};
    }

    // The interaction is made only when the handler asks (most calls never do), and one
    // promise settles the round: the handler's result, or "stuck on questions".
    let interaction: ReplayInteraction | undefined;
    const makeInteraction = (onSuspend: () => void): ReplayInteraction =>
      (interaction ??= new ReplayInteraction(ledger, inputResponses, host.clientCapabilities, onSuspend));
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      let settled = false;
      const suspend = (): void => {
        if (settled) return;
        settled = true;
        try {
          resolve(this.suspended(request, host, interaction!, ledger, claims));
        } catch (error) {
          reject(error);
        }
      };
      host.attach(() => makeInteraction(suspend));
      invoke().then(
        (result) => {
          if (settled) return;
          settled = true;
          interaction?.cancelSuspend();
          if (result.resultType !== 'input_required') return resolve(result);
          try {
            resolve(this.manualInputRequired(request, host, makeInteraction(suspend), result, claims));
          } catch (error) {
            reject(error);
          }
        },
        (error: unknown) => {
          if (settled) return;
          settled = true;
          reject(error);
        },
      );
    });
  }

  /** The handler is stuck on unanswered questions: end the round and send them, with the ledger sealed. */
  private suspended(
    request: JsonRpcRequest,
    host: RoundHost,
    interaction: ReplayInteraction,
    ledger: Ledger,
    claims: StateClaims | undefined,
  ): Record<string, unknown> {
    host.endRound();
    const inputRequests: Record<string, InputRequest> = {};
    const pending: Record<string, string> = {};
    for (const [key, question] of interaction.unanswered) {
      inputRequests[key] = question.request;
      pending[key] = question.digest;
    }
    const requestState = this.seal(request, host, claims, interaction.nextLedger(ledger.u, pending));
    return { resultType: 'input_required', inputRequests, requestState };
  }

  /** A handler returned an input-required result by hand: check what it asks, then seal what it keeps. */
  private manualInputRequired(
    request: JsonRpcRequest,
    host: RoundHost,
    interaction: ReplayInteraction,
    result: Record<string, unknown>,
    claims: StateClaims | undefined,
  ): Record<string, unknown> {
    const requests = result.inputRequests;
    const pending: Record<string, string> = {};
    const missing: ClientCapabilities[] = [];
    if (requests !== undefined) {
      if (!isObject(requests)) throw new TypeError('inputRequests must be an object of input requests');
      for (const [key, entry] of Object.entries(requests)) {
        if (!isObject(entry) || !INPUT_METHODS.has(String(entry.method))) {
          throw new TypeError(`inputRequests.${key} must be an elicitation/create, sampling/createMessage or roots/list request`);
        }
        const need = missingFor(entry as unknown as InputRequest, host.clientCapabilities);
        if (need) missing.push(need);
        pending[key] = digestOf(entry);
      }
      if (missing.length > 0) {
        const required = mergeCapabilities(missing);
        throw McpError.missingCapability(`This request needs client capabilities it did not declare: ${Object.keys(required).join(', ')}`, required);
      }
    }
    const marked = (result as { [AUTHOR_STATE]?: JsonValue })[AUTHOR_STATE];
    const authorState = marked !== undefined ? marked : typeof result.requestState === 'string' ? result.requestState : undefined;
    const sealed = this.seal(request, host, claims, interaction.nextLedger(authorState, pending));
    const out: Record<string, unknown> = { resultType: 'input_required' };
    if (requests !== undefined && Object.keys(requests as object).length > 0) out.inputRequests = requests;
    out.requestState = sealed;
    if (result._meta !== undefined) out._meta = result._meta;
    return out;
  }

  private seal(request: JsonRpcRequest, host: RoundHost, claims: StateClaims | undefined, ledger: Ledger): string {
    this.options.beforeSeal?.();
    try {
      return this.options.sealer.seal(claims ?? this.claims(request, host.principal), ledger);
    } catch (error) {
      if (error instanceof StateTooLargeError) {
        throw new TypeError(`${request.method} "${String(request.params?.name ?? request.params?.uri)}": ${error.message}`);
      }
      throw error;
    }
  }
}
