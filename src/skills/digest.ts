/** Skill file digests: SHA-256 of the raw bytes, written `sha256:` and 64 lowercase hex digits. */

import { platformCrypto } from '../platform/crypto.js';

export const DIGEST_FORMAT = /^sha256:[0-9a-f]{64}$/;

export async function digestOf(bytes: Uint8Array): Promise<string> {
  const hash = await platformCrypto().sha256(bytes);
  let hex = '';
  for (const byte of hash) hex += byte.toString(16).padStart(2, '0');
  return `sha256:${hex}`;
}
