/**
 * The one table of HTTP statuses on Streamable HTTP. The spec fixes 404 for
 * -32601, and 400 for malformed requests and for -32700, -32600, -32020,
 * -32021 and -32022; every other error rides on 200, so that a client that
 * speaks both eras does not mistake it for an older server's rejection. A
 * 2025-11-25 session's replies are all 200 (its clients read error codes only
 * from 2xx bodies) except where the session itself is the problem.
 */

import { ErrorCode, type ErrorCondition } from '../../protocol/errors.js';

const BY_CONDITION: Readonly<Record<ErrorCondition, number>> = {
  malformed: 400,
  'unknown-session': 404,
  overloaded: 503,
  limited: 429,
};

export function httpStatusFor(code: number | undefined, condition?: ErrorCondition, legacySession = false): number {
  if (condition !== undefined) return BY_CONDITION[condition];
  if (code === undefined || legacySession) return 200;
  switch (code) {
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400;
    default:
      return 200;
  }
}
