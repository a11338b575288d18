/**
 * A server that answers 503 or 429 with `Retry-After` (RFC 9110 §10.2.3:
 * delay-seconds or an HTTP-date) says when to try again. The HTTP transport
 * sends the same request again after that long, bounded: `maxAttempts` sends
 * in all, `maxTotalWaitMs` of waiting in all, never past the request's own
 * deadline, cut short by the caller's signal. When a bound stops it, the
 * request fails with a ServerBusyError saying the status, the attempts and
 * the last Retry-After.
 *
 * Only these two statuses, and only with Retry-After: they are a refusal
 * before any work (a Tessera server answers 503/429 only before it runs
 * anything: Redis unreachable, a limit reached, a token it cannot check),
 * which a proxy's 502 or 504 is not (the request may have run behind it).
 */

import { isObject } from '../protocol/guards.js';
import type { Deadline } from './deadline.js';
import { ServerBusyError } from './errors.js';

export interface BusyRetryOptions {
  /** Most times one request is sent, the first included (default 5). */
  maxAttempts?: number;
  /** Most time spent waiting between them, in ms, all waits together (default 30 s). */
  maxTotalWaitMs?: number;
}

export const DEFAULT_BUSY_ATTEMPTS = 5;
export const DEFAULT_BUSY_TOTAL_WAIT_MS = 30_000;

/** Statuses that refuse a request before any work and may say when to come back. */
export const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);
/** Statuses that say "try again shortly" (a proxy, a busy instance), not "no": what task polling tries again. */
export const PASSING_STATUSES: ReadonlySet<number> = new Set([...RETRY_AFTER_STATUSES, 502, 504]);

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';
const MONTH = `(${MONTHS.join('|')})`;
/** IMF-fixdate, the preferred form: `Sun, 06 Nov 1994 08:49:37 GMT`. */
const IMF_FIXDATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${MONTH} (\\d{4}) ${TIME} GMT$`);
/** The obsolete RFC 850 form: `Sunday, 06-Nov-94 08:49:37 GMT`. */
const RFC850_DATE = new RegExp(`^(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday), (\\d{2})-${MONTH}-(\\d{2}) ${TIME} GMT$`);
/** The obsolete asctime form: `Sun Nov  6 08:49:37 1994` (GMT). */
const ASCTIME_DATE = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${MONTH} ( \\d|\\d{2}) ${TIME} (\\d{4})$`);

/** An HTTP-date (RFC 9110 §5.6.7, all three forms a recipient must read) in ms since the epoch; undefined when it is none. */
export function parseHttpDate(text: string, now = Date.now()): number | undefined {
  let parts: { day: string; month: string; year: number; time: string[] };
  let match: RegExpExecArray | null;
  if ((match = IMF_FIXDATE.exec(text))) parts = { day: match[1]!, month: match[2]!, year: Number(match[3]), time: match.slice(4) };
  else if ((match = RFC850_DATE.exec(text))) {
    // A two-digit year more than 50 years ahead is the most recent past year with those digits (RFC 9110 §5.6.7).
    const thisYear = new Date(now).getUTCFullYear();
    let year = Math.floor(thisYear / 100) * 100 + Number(match[3]);
    if (year > thisYear + 50) year -= 100;
    parts = { day: match[1]!, month: match[2]!, year, time: match.slice(4) };
  } else if ((match = ASCTIME_DATE.exec(text))) parts = { day: match[2]!.trim(), month: match[1]!, year: Number(match[6]), time: match.slice(3, 6) };
  else return undefined;
  const [h, m, s] = parts.time.map(Number) as [number, number, number];
  const day = Number(parts.day);
  const at = Date.UTC(parts.year, MONTHS.indexOf(parts.month), day, h, m, s);
  // 31 Feb or 25:00 is no date (Date.UTC would roll it over); 60 s is a leap second.
  if (new Date(at).getUTCDate() !== day || h > 23 || m > 59 || s > 60) return undefined;
  return at;
}

/** How long a Retry-After value says to wait, in ms (0 for a date already past); undefined when it is neither form. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = parseHttpDate(text, now);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/** A reply that asked to be tried again later: thrown by one send, caught by the transport's request loop. */
export class RetryLater extends Error {
  constructor(
    readonly status: number,
    /** The Retry-After header as sent. */
    readonly retryAfter: string,
    readonly waitMs: number,
    /** The body (its start), kept on the error. */
    readonly body: string,
  ) {
    super(`HTTP ${status} with Retry-After: ${retryAfter}`);
  }
}

/** What a refusal's body says, for the error a person reads: the JSON-RPC error's message, else the start of the text. */
export function saidIn(text: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isObject(parsed) && isObject(parsed.error) && typeof parsed.error.message === 'string') return parsed.error.message;
  } catch {
    // Not JSON: the text itself.
  }
  const trimmed = text.trim().replace(/\s+/g, ' ');
  return trimmed === '' ? undefined : trimmed.length > 200 ? `${trimmed.slice(0, 200)}…` : trimmed;
}

/** The retries of one request: counts its attempts and waits, and says how long to wait before the next, or throws why not. */
export class BusyRetries {
  private attempts = 1;
  private waited = 0;
  private readonly maxAttempts: number;
  private readonly maxTotalWaitMs: number;

  constructor(
    private readonly url: string,
    options: BusyRetryOptions = {},
  ) {
    this.maxAttempts = Math.max(1, Math.floor(options.maxAttempts ?? DEFAULT_BUSY_ATTEMPTS));
    this.maxTotalWaitMs = Math.max(0, options.maxTotalWaitMs ?? DEFAULT_BUSY_TOTAL_WAIT_MS);
  }

  /** The wait before sending `later`'s request again (the attempt is counted), or the ServerBusyError saying which bound stops it. */
  next(later: RetryLater, deadline: Deadline): number {
    const wait = later.waitMs;
    const left = deadline.remaining();
    let why: string | undefined;
    if (this.attempts >= this.maxAttempts) why = `busyRetry.maxAttempts (${this.maxAttempts}) reached`;
    else if (this.waited + wait > this.maxTotalWaitMs) {
      why = `waiting ${wait} ms more would pass busyRetry.maxTotalWaitMs (${this.maxTotalWaitMs} ms; ${this.waited} ms waited so far)`;
    } else if (left !== undefined && wait >= left) why = `waiting ${wait} ms would pass the request's time limit (${left} ms left of ${deadline.totalMs} ms)`;
    if (why !== undefined) {
      const said = saidIn(later.body);
      throw new ServerBusyError(
        `HTTP ${later.status} from ${this.url} after ${this.attempts} attempt${this.attempts === 1 ? '' : 's'} (the last with Retry-After: ${later.retryAfter}); not tried again: ${why}${said === undefined ? '' : `. The server said: ${said}`}`,
        later.status,
        later.body,
        this.attempts,
        later.retryAfter,
        wait,
      );
    }
    this.attempts++;
    this.waited += wait;
    return wait;
  }
}
