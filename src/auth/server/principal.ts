/**
 * The principal of a verified caller: issuer, subject and client together,
 * so that neither another user of the same client, nor the same user in
 * another client, nor a namesake at another authorization server can open
 * a caller's sealed state, task or 2025 session. JSON keeps it unambiguous.
 */

import type { AuthInfo } from '../../protocol/authorization.js';

export function principalOf(auth: AuthInfo): string {
  return JSON.stringify([auth.issuer ?? '', auth.subject ?? '', auth.clientId ?? '']);
}
