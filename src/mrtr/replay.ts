/**
 * Replay, not suspension: on every round the handler runs again from the top.
 * An answered question (its answer in the sealed ledger, pinned to a digest of
 * the exact question) returns at once; an answer in this retry's
 * `inputResponses` is checked and recorded; anything else is unanswered. An
 * unanswered ask never resolves: once the handler can make no more progress,
 * the round ends and every unanswered question goes out together.
 */

import { McpError } from '../protocol/errors.js';
import type { ClientCapabilities, InputRequest, JsonValue } from '../protocol/types.js';
import { mergeCapabilities, missingFor } from '../protocol/capabilities.js';
import { digestOf } from './digest.js';
import { isQuestion, type Interaction, type QuestionMap } from './interaction.js';
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
}

interface Unanswered {
  digest: string;
  request: InputRequest;
}

type Resolution = { answered: true; value: unknown } | { answered: false };

/** Microtask generations to wait before a handler counts as stuck on its questions. */
const SETTLE_HOPS = 64;

export class ReplayInteraction implements Interaction {
  /** Questions this run could not get answered, by key. */
  readonly unanswered = new Map<string, Unanswered>();
  private readonly answers: Record<string, [string, unknown]>;
  private readonly onceResults: Record<string, [JsonValue]>;
  private readonly onceRunning = new Map<string, Promise<unknown>>();
  private readonly digestsThisRun = new Map<string, string>();
  /** Bumped by every new unanswered question and by cancelSuspend; a pending end-of-round with an old value gives up. */
  private suspendEpoch = 0;

  constructor(
    private readonly ledger: Ledger,
    readonly inputResponses: Readonly<Record<string, unknown>>,
    private readonly capabilities: ClientCapabilities,
    /** Called when the handler is stuck on unanswered questions. */
    private readonly onSuspend: () => void,
  ) {
    this.answers = { ...ledger.a };
    this.onceResults = { ...ledger.o };
  }

  get state(): JsonValue | undefined {
    return this.ledger.u;
  }

  canAsk(question: Question<unknown>): boolean {
    return missingFor(question.request, this.capabilities) === undefined;
  }

  async ask(input: Question<unknown> | QuestionMap): Promise<unknown> {
    const single = isQuestion(input);
    const entries: Array<[string | undefined, Question<unknown>]> = single ? [[undefined, input]] : Object.entries(input);
    if (!single && entries.length === 0) return {};
    for (const [, question] of entries) {
      if (!isQuestion(question)) throw new TypeError('ctx.ask takes a question (see `ask.form`, `ask.url`, `ask.sampling`, `ask.roots`) or a map of them');
    }
    const missing = entries.map(([, q]) => missingFor(q.request, this.capabilities)).filter((m): m is ClientCapabilities => m !== undefined);
    if (missing.length > 0) {
      const required = mergeCapabilities(missing);
      throw McpError.missingCapability(`This request needs client capabilities it did not declare: ${Object.keys(required).join(', ')}`, required);
    }
    const resolutions = await Promise.all(entries.map(([key, q]) => this.resolve(key ?? q.key, q)));
    // A fresh promise per ask: a shared never-settling one would hold every suspended handler reachable forever.
    if (resolutions.some((r) => !r.answered)) return new Promise<never>(() => {});
    const values = resolutions.map((r) => (r as { value: unknown }).value);
    return single ? values[0] : Object.fromEntries(entries.map(([key], i) => [key, values[i]]));
  }

  private async resolve(explicitKey: string | undefined, question: Question<unknown>): Promise<Resolution> {
    const digest = question.digest ?? digestOf(question.request);
    const key = explicitKey ?? `${question.kind}-${digest.slice(0, 12)}`;
    const seen = this.digestsThisRun.get(key);
    if (seen !== undefined && seen !== digest) {
      throw new TypeError(`Two different questions were asked under the key "${key}"; give each its own key`);
    }
    this.digestsThisRun.set(key, digest);

    const recorded = this.answers[key];
    if (recorded && recorded[0] === digest) {
      const value = await question.parse(recorded[1]);
      if (value !== undefined) return { answered: true, value };
    }
    if (Object.hasOwn(this.inputResponses, key)) {
      // An answer counts for the question that was sent under its key; an answer to an
      // earlier wording (a changed question) does not, and the question is asked again.
      const sent = this.ledger.p?.[key];
      if (sent === undefined || sent === digest) {
        const raw = this.inputResponses[key];
        const value = await question.parse(raw);
        if (value !== undefined) {
          this.answers[key] = [digest, raw];
          return { answered: true, value };
        }
      }
    }
    this.unanswered.set(key, { digest, request: question.request });
    this.scheduleSuspend();
    return { answered: false };
  }

  /**
   * Ends the round once the handler's pending promise work has run, so asks
   * made concurrently (Promise.all, or after a few awaits) join the same
   * round. It waits through SETTLE_HOPS generations of microtasks rather than
   * a turn of the event loop: a busy server would otherwise hold every first
   * round until all the I/O of that turn was processed.
   */
  private scheduleSuspend(): void {
    const epoch = ++this.suspendEpoch;
    let hops = SETTLE_HOPS;
    const hop = (): void => {
      if (epoch !== this.suspendEpoch) return;
      if (--hops > 0) queueMicrotask(hop);
      else this.onSuspend();
    };
    queueMicrotask(hop);
  }

  /** Stops a pending end-of-round (the handler finished without the answers). */
  cancelSuspend(): void {
    this.suspendEpoch++;
  }

  once<T>(name: string, fn: () => T | Promise<T>): Promise<T> {
    const stored = this.onceResults[name];
    if (stored) return Promise.resolve(stored[0] as T);
    const running = this.onceRunning.get(name);
    if (running) return running as Promise<T>;
    const run = (async () => {
      const value = await fn();
      let json: JsonValue;
      try {
        json = JSON.parse(JSON.stringify([value]))[0] as JsonValue;
      } catch (error) {
        throw new TypeError(`ctx.once("${name}") must return a JSON value (${(error as Error).message})`);
      }
      this.onceResults[name] = [json];
      return value;
    })();
    this.onceRunning.set(name, run);
    return run;
  }

  /** The ledger to seal for the next round. */
  nextLedger(authorState: JsonValue | undefined, pending: Record<string, string>): Ledger {
    const ledger: Ledger = {};
    if (Object.keys(this.answers).length > 0) ledger.a = this.answers;
    if (Object.keys(pending).length > 0) ledger.p = pending;
    if (Object.keys(this.onceResults).length > 0) ledger.o = this.onceResults;
    if (authorState !== undefined) ledger.u = authorState;
    return ledger;
  }
}
