/**
 * A document the resource server keeps from an authorization server (its
 * metadata, its key set), fetched so that a busy or hostile caller cannot
 * turn this server into an amplifier against it: one fetch at a time however
 * many requests wait on it; kept until it is `maxAgeMs` old; and after a
 * failed fetch none for `retryMs` — the requests meanwhile are told when to
 * come back (TokenCheckUnavailableError with `retryAfterSeconds`, the 503's
 * Retry-After) instead of each asking the failing server again.
 */

import { TokenCheckUnavailableError } from './errors.js';

export interface RefetchRules {
  /** How long a fetched document is used before it is fetched again, in ms. */
  maxAgeMs: number;
  /** How long after an attempt, failed or not, before another may be made (see `refresh`), in ms. */
  retryMs: number;
}

export class RemoteDocument<T> {
  private kept: { document: T; fetchedAt: number } | undefined;
  private pending: Promise<T> | undefined;
  private failure: { at: number; error: unknown } | undefined;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly rules: RefetchRules,
  ) {}

  /** The document kept while it is fresh; else fetched (or the fetch under way joined). */
  get(now: () => number): Promise<T> {
    const kept = this.kept;
    if (kept && now() - kept.fetchedAt < this.rules.maxAgeMs) return Promise.resolve(kept.document);
    return this.fetch(now);
  }

  /**
   * A newer document, when the one kept may be out of date (a token names a
   * key it does not have); undefined when the last fetch was less than
   * `retryMs` ago, so such tokens cannot make this server fetch on demand.
   */
  refresh(now: () => number): Promise<T> | undefined {
    if (this.pending) return this.pending;
    const kept = this.kept;
    if (kept && now() - kept.fetchedAt < this.rules.retryMs) return undefined;
    return this.fetch(now);
  }

  private fetch(now: () => number): Promise<T> {
    if (this.pending) return this.pending;
    const failure = this.failure;
    if (failure) {
      const wait = failure.at + this.rules.retryMs - now();
      if (wait > 0) {
        const retryAfterSeconds = Math.max(1, Math.ceil(wait / 1000));
        const reason = failure.error instanceof Error ? failure.error.message : String(failure.error);
        return Promise.reject(new TokenCheckUnavailableError(`${reason} (not fetched again for ${retryAfterSeconds} s)`, { cause: failure.error, retryAfterSeconds }));
      }
    }
    const pending = this.load().then(
      (document) => {
        this.kept = { document, fetchedAt: now() };
        this.failure = undefined;
        return document;
      },
      (error: unknown) => {
        this.failure = { at: now(), error };
        if (this.rules.retryMs <= 0) throw error;
        const retryAfterSeconds = Math.max(1, Math.ceil(this.rules.retryMs / 1000));
        throw new TokenCheckUnavailableError((error as Error).message, { cause: error, retryAfterSeconds });
      },
    );
    this.pending = pending;
    const clear = (): void => {
      if (this.pending === pending) this.pending = undefined;
    };
    pending.then(clear, clear);
    return pending;
  }
}
