/** What the kit records of one request and of a flow of them. */

import type { JsonRpcErrorObject } from '../protocol/errors.js';
import type { JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { ClientCapabilities, InputRequests, Result } from '../protocol/types.js';
import type { RequestLogEntry } from '../server/request-log.js';

/** A request the kit sent, and everything that came back. */
export interface Exchange {
  /** The request as the server received it (through JSON, as on a wire). */
  request: JsonRpcRequest;
  response: JsonRpcResponse;
  /** Notifications the server sent for it (progress, log messages). */
  notifications: JsonRpcNotification[];
  /** The server's request log entry for it: status, flow, round, once steps, a refused state's reason. */
  log: RequestLogEntry | undefined;
  result: Result | undefined;
  error: JsonRpcErrorObject | undefined;
  /** Present when the result is `input_required`: the round to answer (`retry`) or attack. */
  pending: PendingFlow | undefined;
}

/** A round waiting for answers. */
export interface PendingFlow {
  method: string;
  /** The original params (without `_meta`, `inputResponses` and `requestState`). */
  params: Record<string, unknown>;
  /** The round whose result this is (1 for the first request's). */
  round: number;
  inputRequests: InputRequests;
  /** The state to send back, exactly; undefined when the round sent none. */
  requestState: string | undefined;
  /** Who made the flow's requests, and what they declared (a retry repeats them unless told otherwise). */
  principal: string | undefined;
  capabilities: ClientCapabilities | undefined;
}

/** One round of a flow the kit ran. */
export interface RoundRecord {
  /** 1 for the first request. */
  round: number;
  /** The answers this round's request carried (none on the first). */
  answers: Record<string, unknown>;
  /** The round's resultType, or `error`. */
  outcome: string;
  /** What the round's result asked (none when it ended the flow). */
  questions: InputRequests;
  /** Bytes of the state the round sealed. */
  stateBytes: number | undefined;
  /** The `ctx.once` steps that ran in this round. */
  onceSteps: string[];
  flowId: string | undefined;
  exchange: Exchange;
}

/** A line the server logged (its `logger`), captured by the kit when it made the server. */
export interface LoggedLine {
  level: 'error' | 'warn';
  message: string;
  detail: unknown;
}

/** A flow run to its end. */
export class Run<R extends Result = Result> {
  constructor(
    /** Every round, in order. */
    readonly transcript: readonly RoundRecord[],
    /** What the server logged during the run (handler failures, refused states). */
    readonly serverLog: readonly LoggedLine[],
  ) {}

  private get last(): Exchange {
    return this.transcript[this.transcript.length - 1]!.exchange;
  }

  /** The final result; throws when the flow ended in a JSON-RPC error (saying which, and what the server logged). */
  get result(): R {
    const { result, error } = this.last;
    if (result) return result as R;
    const logged = this.serverLog.map((line) => `\n  server ${line.level}: ${line.message}${line.detail instanceof Error ? ` (${line.detail.message})` : ''}`).join('');
    throw new Error(`The flow ended in error ${error?.code} after ${this.rounds} round(s): ${error?.message}${logged}`);
  }

  /** The JSON-RPC error the flow ended in, if it did. */
  get error(): JsonRpcErrorObject | undefined {
    return this.last.error;
  }

  get rounds(): number {
    return this.transcript.length;
  }

  /** The flow id every round carried (absent when the first request needed no input). */
  get flowId(): string | undefined {
    return this.transcript.find((round) => round.flowId !== undefined)?.flowId;
  }

  /** The `ctx.once` steps that ran, in the order they ran, across all rounds. */
  get onceSteps(): string[] {
    return this.transcript.flatMap((round) => round.onceSteps);
  }

  /** The text blocks of a tool result's content, joined by newlines. */
  get text(): string {
    const content = (this.result as { content?: unknown }).content;
    if (!Array.isArray(content)) return '';
    return content
      .filter((block): block is { type: 'text'; text: string } => typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text')
      .map((block) => block.text)
      .join('\n');
  }
}
