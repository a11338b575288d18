/**
 * `--answers file.json`: answers to the server's questions, for scripts and
 * tests, so nothing is asked in the terminal. The file is one JSON object,
 * keyed by the input request's key (2026-07-28 `inputRequests` key) or by the
 * question's exact message text (which also works with 2025-11-25 servers,
 * whose questions carry no key of their own):
 *
 *   { "confirm": { "action": "accept", "content": { "approve": true } } }   an elicitation answer as sent
 *   { "confirm": { "approve": true } }                                      shorthand: accept with this content
 *   { "sign_in_1": "accept" }                                               shorthand: just the action (URL mode)
 *   { "summary": "Paris is the capital." }                                  sampling: the model's text
 *   { "summary": { "role": "assistant", "content": {…}, "model": "m" } }   sampling: a whole result
 *
 * Sampling asks have no message; under a 2025-11-25 server they are found
 * under the key "sampling".
 */

import { readFile } from 'node:fs/promises';
import type { CreateMessageResult, ElicitResult } from 'tessera-mcp/client';
import { isObject } from 'tessera-mcp/protocol';
import { MissingAnswerError, UsageError } from './errors.js';

type Json = Record<string, unknown>;

const ACTIONS = new Set(['accept', 'decline', 'cancel']);

export class AnswersFile {
  private constructor(
    readonly path: string,
    private readonly entries: Json,
  ) {}

  static async load(path: string): Promise<AnswersFile> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new UsageError(`Cannot read --answers ${path}: ${(error as Error).message}`);
    }
    let entries: unknown;
    try {
      entries = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`--answers ${path} is not valid JSON: ${(error as Error).message}`);
    }
    if (!isObject(entries)) throw new UsageError(`--answers ${path} must hold a JSON object keyed by question (see tessera help)`);
    return new AnswersFile(path, entries);
  }

  /** The raw answer for a question, by key first, then by message text; undefined when the file has none. */
  find(key: string, message: string | undefined): unknown {
    if (Object.hasOwn(this.entries, key)) return this.entries[key];
    if (message !== undefined && Object.hasOwn(this.entries, message)) return this.entries[message];
    return undefined;
  }

  /** Fails (exit 2) naming the question, with an entry that would answer it. */
  missing(key: string, message: string | undefined, example: unknown): never {
    const asked = message === undefined || message === key ? '' : ` (${JSON.stringify(message)})`;
    throw new MissingAnswerError(
      `The server asked ${JSON.stringify(key)}${asked}, and --answers ${this.path} has no answer for it. ` +
        `Add e.g. ${JSON.stringify({ [key]: example })}`,
    );
  }

  /** An elicitation answer from its raw entry: a full result, an action alone, or shorthand content. */
  elicitation(key: string, raw: unknown): ElicitResult {
    if (typeof raw === 'string' && ACTIONS.has(raw)) return { action: raw as ElicitResult['action'] };
    if (!isObject(raw)) throw new UsageError(`--answers ${this.path}: the answer to "${key}" must be an object or "accept"/"decline"/"cancel"`);
    // A form with a field named "action" answers through the full form: { "action": "accept", "content": { "action": … } }.
    if (typeof raw.action === 'string' && ACTIONS.has(raw.action) && Object.keys(raw).every((k) => k === 'action' || k === 'content' || k === '_meta')) {
      if (raw.content !== undefined && !isObject(raw.content)) throw new UsageError(`--answers ${this.path}: "${key}".content must be an object`);
      return raw as ElicitResult;
    }
    return { action: 'accept', content: raw as ElicitResult['content'] };
  }

  /** A sampling answer from its raw entry: the text alone, `{ text }`, or a whole result. */
  sampling(key: string, raw: unknown): CreateMessageResult {
    if (typeof raw === 'string') return { role: 'assistant', content: { type: 'text', text: raw }, model: 'answers-file', stopReason: 'endTurn' };
    if (isObject(raw) && typeof raw.text === 'string' && raw.content === undefined) {
      return { role: 'assistant', content: { type: 'text', text: raw.text }, model: 'answers-file', stopReason: 'endTurn' };
    }
    if (isObject(raw) && raw.content !== undefined) {
      return { role: 'assistant', model: 'answers-file', ...raw } as CreateMessageResult;
    }
    throw new UsageError(`--answers ${this.path}: the answer to "${key}" must be the model's text, { "text": … } or a whole sampling result`);
  }
}
