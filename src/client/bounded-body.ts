/**
 * An MCP reply's JSON body read within `maxResponseBytes` (protocol/
 * bounded-body.ts: counted after decompression, the download stopped the
 * moment the limit is passed), its failures made the client's errors: too
 * large → ResponseTooLargeError; cut short or reset → TransportError with
 * the cause.
 */

import { BodyCutShortError, BodyTooLargeError, readBoundedText } from '../protocol/bounded-body.js';
import { ResponseTooLargeError, TransportError } from './errors.js';

export { describeFailure as describe } from '../protocol/bounded-body.js';

export async function readBodyText(response: Response, maxBytes: number, from: string): Promise<string> {
  try {
    return await readBoundedText(response, maxBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      throw new ResponseTooLargeError(`The response from ${from} is larger than maxResponseBytes (${maxBytes} bytes); stopped reading it`, maxBytes);
    }
    if (error instanceof BodyCutShortError) {
      throw new TransportError(`The response from ${from} was cut short: ${error.reason}`, response.status, undefined, { cause: error.cause });
    }
    throw error;
  }
}
