/**
 * A request waiting for input, in manual mode: what was asked and what must be
 * echoed. It turns into JSON and back, so a flow can be resumed later, in
 * another process (e.g. after a person answers in a web UI).
 */

import type { InputRequests, Implementation } from '../protocol/types.js';

export interface PendingRoundJson {
  v: 1;
  method: string;
  /** The original params (without `_meta`, `inputResponses` and `requestState`). */
  params: Record<string, unknown>;
  /** How many input rounds this flow has had, this one included. */
  round: number;
  inputRequests?: InputRequests;
  /** Present exactly when the server sent one (an empty string is a state too). */
  requestState?: string;
  server?: Implementation;
}

export class PendingRound {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
  readonly round: number;
  readonly inputRequests: Readonly<InputRequests>;
  readonly requestState: string | undefined;
  readonly hasRequestState: boolean;
  readonly server: Implementation | undefined;

  constructor(json: PendingRoundJson) {
    if (json.v !== 1 || typeof json.method !== 'string' || typeof json.params !== 'object' || json.params === null) {
      throw new TypeError('Not a pending round (expected the JSON of PendingRound.toJSON())');
    }
    this.method = json.method;
    this.params = json.params;
    this.round = json.round;
    this.inputRequests = json.inputRequests ?? {};
    this.hasRequestState = json.requestState !== undefined;
    this.requestState = json.requestState;
    this.server = json.server;
  }

  static fromJSON(json: PendingRoundJson | string): PendingRound {
    return new PendingRound(typeof json === 'string' ? (JSON.parse(json) as PendingRoundJson) : json);
  }

  toJSON(): PendingRoundJson {
    const json: PendingRoundJson = { v: 1, method: this.method, params: { ...this.params }, round: this.round };
    if (Object.keys(this.inputRequests).length > 0) json.inputRequests = { ...this.inputRequests };
    if (this.hasRequestState) json.requestState = this.requestState;
    if (this.server) json.server = this.server;
    return json;
  }
}
