/**
 * Helpers for the states a client must never get away with: one altered
 * character, and the check that a reply is the one fixed refusal (with, from
 * the server's request log, the reason it was refused for).
 */

import { ErrorCode } from '../protocol/errors.js';
import type { StateRejection } from '../mrtr/sealed-state.js';
import type { Exchange } from './exchange.js';

/** What every refused state gets, whatever the reason (the reason goes to the server log only). */
export const REFUSED_STATE = { code: ErrorCode.InvalidParams, message: 'Invalid params: requestState is invalid or expired' } as const;

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** `state` with one character of its sealed body changed (at `at`, counted from the body's start; default its middle). */
export function tamper(state: string, at?: number): string {
  const body = state.lastIndexOf('.') + 1;
  if (body === 0 || body >= state.length) throw new TypeError('tamper() needs a sealed requestState (t2.<key id>.<body>)');
  const index = body + (at ?? Math.floor((state.length - body) / 2));
  if (index >= state.length) throw new RangeError(`tamper(): position ${at} is past the body's ${state.length - body} characters`);
  const was = state[index]!;
  const next = BASE64URL[(BASE64URL.indexOf(was) + 1) % BASE64URL.length]!;
  return state.slice(0, index) + next + state.slice(index + 1);
}

export class StateNotRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StateNotRefusedError';
  }
}

/** Throws unless `exchange` is the fixed refusal — and, given `reason`, refused for it. */
export function assertRefused(exchange: Exchange, reason?: StateRejection): void {
  const error = exchange.error;
  if (!error || error.code !== REFUSED_STATE.code || error.message !== REFUSED_STATE.message) {
    const got = error ? `error ${error.code} "${error.message}"` : `a ${String(exchange.result?.resultType ?? 'complete')} result`;
    throw new StateNotRefusedError(`Expected the requestState to be refused (${REFUSED_STATE.code} "${REFUSED_STATE.message}"), got ${got}`);
  }
  const logged = exchange.log?.rejectedState;
  if (reason !== undefined && logged !== reason) {
    throw new StateNotRefusedError(`The requestState was refused as "${logged ?? 'unknown'}", not "${reason}"`);
  }
}
