/**
 * Replay, not suspension: on every round the handler runs again from the top.
 * An answered question (its answer in the sealed ledger, pinned to a digest of
 * the exact question) returns at once; an answer in this retry's
 * `inputResponses` is checked and recorded; anything else is unanswered. An
 * unanswered ask never resolves: once the handler can make no more progress,
 * the round is stuck and every unanswered question goes out together.
 */

import { missingFor } from '../protocol/capabilities.js';
import type { ClientCapabilities, InputRequest, JsonValue, Result } from '../protocol/types.js';
import { askAll, judgeAnswer } from './ask-all.js';
import { canonicalJson, rememberedDigestOfText } from './digest.js';
import type { Interaction, QuestionMap } from './interaction.js';
import type { Question } from './questions.js';

/** What a flow remembers between rounds; sealed into requestState, never kept on the server. */
export interface Ledger {
  /** Answers so far: key → [digest of the question, the raw answer]. */
  a?: Record<string, [string, unknown]>;
  /** Questions sent in the last round: key → digest. */
  p?: Record<string, string>;
  /** Results of `once` steps: name → [JSON value]. */
  o?: Record<string, [JsonValue]>;
  /** The author's own state from a hand-made input-required result. */
  u?: JsonValue;
  /** Questions asked again after answers that did not fit: key → [answers so far, what was wrong with the last]. */
  r?: Record<string, [number, string]>;
  /**
   * The flow (input-rounds.ts): [its id, the round that sealed this state, the
   * link to that round's span when it was traced]. States sealed before flow
   * ids lack it and still open.
   */
  f?: [string, number] | [string, number, string];
}

export interface Unanswered {
  digest: string;
  request: InputRequest;
}

/** The outcome of a round whose handler could make no more progress without answers. */
export const STUCK: unique symbol = Symbol('tessera.stuck');
export type Stuck = typeof STUCK;

/**
 * The outcome of a round answered before: its `once` step found the round's
 * state redeemed, and the answer that round gave was kept. It is the answer
 * again, as it was (the step is not run, nothing is sealed anew).
 */
export class Replayed {
  constructor(readonly result: Result) {}
}

/** A round's claim before its first `once` step: undefined when this run redeemed the state, else the answer a run that did gave. */
export type ClaimRound = () => Promise<Result | undefined>;

/** Microtask generations to wait before a handler counts as stuck on its questions. */
const SETTLE_HOPS = 64;
const SETTLED = Promise.resolve();

/** A step's result as the JSON value that is kept of it (what a replay returns); a TypeError naming `what` when it is none. */
export function asJsonValue(value: unknown, what: string): JsonValue {
  try {
    return JSON.parse(JSON.stringify([value]))[0] as JsonValue;
  } catch (error) {
    throw new TypeError(`${what} must return a JSON value (${(error as Error).message})`);
  }
}

/** The digest that pins an answer to the exact question it answers. */
export function questionDigest(question: Question<unknown>): Promise<string> {
  return rememberedDigestOfText(question.digestSource ?? canonicalJson(question.request));
}

export class ReplayInteraction implements Interaction {
  /** Questions this run could not get answered, by key. */
  readonly unanswered = new Map<string, Unanswered>();
  /** The `once` steps that ran in this round (not those whose result the ledger already had), in order. */
  readonly onceRan: string[] = [];
  private readonly answers: Record<string, [string, unknown]>;
  private readonly onceResults: Record<string, [JsonValue]>;
  private readonly retries: Record<string, [number, string]>;
  // Made on first use: most rounds (a tool that never asks) need neither.
  private onceRunning: Map<string, Promise<unknown>> | undefined;
  private digestsThisRun: Map<string, string> | undefined;
  /** Asks still reading their answer (digests and answer checks may take longer than microtasks). */
  private resolving = 0;
  /** Bumped by every new end-of-round countdown; an older countdown gives up. */
  private countdown = 0;
  private markStuck: (() => void) | undefined;
  private markReplayed: ((replayed: Replayed) => void) | undefined;

  /** Claims the round before its first `once` step runs (made at most once per run). */
  private claimed: Promise<Result | undefined> | undefined;
  private redeemedRound = false;

  constructor(
    private readonly ledger: Ledger,
    readonly inputResponses: Readonly<Record<string, unknown>>,
    /** What this request declared it can be asked. */
    readonly capabilities: ClientCapabilities,
    /** Redeems the round's state before a `once` step runs (absent on a first round, which has none). */
    private readonly claimRound?: ClaimRound,
  ) {
    this.answers = { ...ledger.a };
    this.onceResults = { ...ledger.o };
    this.retries = { ...ledger.r };
  }

  /** Whether this run redeemed its round's state (a `once` step ran): its answer is then kept for a replay. Only `once` sets it. */
  get claimedRound(): boolean {
    return this.redeemedRound;
  }

  get state(): JsonValue | undefined {
    return this.ledger.u;
  }

  canAsk(question: Question<unknown>): boolean {
    return missingFor(question.request, this.capabilities) === undefined;
  }

  ask(input: Question<unknown> | QuestionMap): Promise<unknown> {
    return askAll(input, this.capabilities, (question, key) => this.askOne(question, key));
  }

  /** The handler's result; STUCK once it waits on nothing but unanswered questions; Replayed when the round was answered before. */
  settle<T>(running: Promise<T>): Promise<T | Stuck | Replayed> {
    // One promise settled by whichever comes first (what Promise.race does, with fewer promises in between).
    return new Promise<T | Stuck | Replayed>((resolve, reject) => {
      this.markStuck = () => resolve(STUCK);
      this.markReplayed = resolve;
      running.then(resolve, reject);
    });
  }

  private async askOne(question: Question<unknown>, explicitKey: string | undefined): Promise<unknown> {
    this.resolving++;
    let answer: { value: unknown } | undefined;
    try {
      answer = await this.resolve(question, explicitKey);
    } finally {
      this.resolving--;
      if (this.resolving === 0 && this.unanswered.size > 0) this.startCountdown();
    }
    if (answer) return answer.value;
    // A fresh promise per ask: a shared never-settling one would hold every suspended handler reachable forever.
    return new Promise<never>(() => {});
  }

  private async resolve(question: Question<unknown>, explicitKey: string | undefined): Promise<{ value: unknown } | undefined> {
    const digest = await questionDigest(question);
    const key = explicitKey ?? `${question.kind}-${digest.slice(0, 12)}`;
    this.digestsThisRun ??= new Map();
    const seen = this.digestsThisRun.get(key);
    if (seen !== undefined && seen !== digest) {
      throw new TypeError(`Two different questions were asked under the key "${key}"; give each its own key`);
    }
    this.digestsThisRun.set(key, digest);

    const recorded = this.answers[key];
    if (recorded && recorded[0] === digest) return { value: await question.parse(recorded[1]) };
    // Asked again after an answer that did not fit: the question as it went out, saying what was wrong.
    const retry = this.retries[key];
    const asked = retry && question.again ? question.again(retry[1]) : question;
    const sent = asked === question ? digest : await questionDigest(asked);
    // An answer counts only for a question the sealed state shows was asked, under its key and in
    // exactly this wording (its digest): an answer to a question never asked, or to an earlier
    // wording, is ignored, and the question goes out (spec: unrequested inputResponses are ignored).
    if (this.ledger.p?.[key] === sent && Object.hasOwn(this.inputResponses, key)) {
      const raw = this.inputResponses[key];
      const judged = await judgeAnswer(key, question, raw, (retry?.[0] ?? 0) + 1);
      if ('value' in judged) {
        this.answers[key] = [digest, raw];
        delete this.retries[key];
        return judged;
      }
      this.retries[key] = [(retry?.[0] ?? 0) + 1, judged.reason];
      this.unanswered.set(key, { digest: await questionDigest(judged.again), request: judged.again.request });
      return undefined;
    }
    this.unanswered.set(key, { digest: sent, request: asked.request });
    return undefined;
  }

  /**
   * Ends the round once the handler's pending promise work has run, so asks
   * made concurrently (Promise.all, or after a few awaits) join the same
   * round. It waits through SETTLE_HOPS generations of microtasks rather than
   * a turn of the event loop: a busy server would otherwise hold every first
   * round until all the I/O of that turn was processed. An ask still reading
   * its answer holds the round open until it is done.
   */
  private startCountdown(): void {
    const epoch = ++this.countdown;
    let hops = SETTLE_HOPS;
    // Each hop a reaction of a settled promise: a microtask of its own generation, like queueMicrotask's,
    // without the async-context wrapper node puts around every queueMicrotask callback.
    const hop = (): void => {
      if (epoch !== this.countdown || this.resolving > 0) return;
      if (--hops > 0) void SETTLED.then(hop);
      else this.markStuck?.();
    };
    void SETTLED.then(hop);
  }

  once<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
    const stored = this.onceResults[name];
    if (stored) return Promise.resolve(stored[0] as T);
    const running = this.onceRunning?.get(name);
    if (running) return running as Promise<T>;
    const run = (async () => {
      if (this.claimRound) {
        const answered = await (this.claimed ??= this.claimRound());
        if (answered) {
          // Answered before: the round settles with that answer, and the step (like an unanswered ask) never returns.
          this.markReplayed?.(new Replayed(answered));
          return new Promise<never>(() => {});
        }
        this.redeemedRound = true;
      }
      this.onceRan.push(name);
      const value = await fn();
      this.onceResults[name] = [asJsonValue(value, `ctx.once("${name}")`)];
      return value;
    })();
    (this.onceRunning ??= new Map()).set(name, run);
    return run;
  }

  /** What the flow has recorded so far (answers, `once` results, the author's state): enough to run the handler again later, elsewhere. */
  recorded(): Ledger {
    return this.nextLedger(this.ledger.u, {});
  }

  /** The ledger to seal for the next round. */
  nextLedger(authorState: JsonValue | undefined, pending: Record<string, string>): Ledger {
    const ledger: Ledger = {};
    if (Object.keys(this.answers).length > 0) ledger.a = this.answers;
    if (Object.keys(pending).length > 0) ledger.p = pending;
    if (Object.keys(this.onceResults).length > 0) ledger.o = this.onceResults;
    if (authorState !== undefined) ledger.u = authorState;
    if (Object.keys(this.retries).length > 0) ledger.r = this.retries;
    return ledger;
  }
}
