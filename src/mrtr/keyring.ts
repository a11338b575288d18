/**
 * Keys for sealing `requestState`. A ring holds one or more AES-256 keys with
 * ids: the first seals, every key opens. To rotate, put the new key first and
 * keep the old one until flows sealed with it have expired; then drop it.
 *
 * Text form (configuration, `TESSERA_STATE_KEYS`): `id:base64url-32-bytes`,
 * several separated by commas, the sealing key first.
 */

import { randomBytes } from 'node:crypto';

export interface StateKey {
  id: string;
  secret: Buffer;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
export const STATE_KEYS_ENV = 'TESSERA_STATE_KEYS';

function parseKey(text: string): StateKey {
  const colon = text.indexOf(':');
  const id = colon < 0 ? '' : text.slice(0, colon).trim();
  const encoded = colon < 0 ? '' : text.slice(colon + 1).trim();
  if (!KEY_ID.test(id)) throw new TypeError('A state key must look like "<id>:<base64url of 32 bytes>" with an id of letters, digits, "_" or "-"');
  const secret = Buffer.from(encoded, 'base64url');
  if (secret.length !== 32 || secret.toString('base64url') !== encoded.replace(/=+$/, '')) {
    throw new TypeError(`State key "${id}" must hold exactly 32 bytes in base64url`);
  }
  return { id, secret };
}

export class KeyRing {
  readonly keys: readonly StateKey[];
  /** True for a ring made up on the spot because none was configured. */
  readonly ephemeral: boolean;
  private readonly byId: ReadonlyMap<string, StateKey>;

  constructor(keys: readonly StateKey[], ephemeral = false) {
    if (keys.length === 0) throw new TypeError('A key ring needs at least one key');
    const byId = new Map<string, StateKey>();
    for (const key of keys) {
      if (byId.has(key.id)) throw new TypeError(`State key id "${key.id}" appears twice`);
      if (key.secret.length !== 32) throw new TypeError(`State key "${key.id}" must be 32 bytes`);
      byId.set(key.id, key);
    }
    this.keys = keys;
    this.byId = byId;
    this.ephemeral = ephemeral;
  }

  /** Parses the text form: `id:secret[,id:secret…]`, sealing key first. */
  static parse(text: string): KeyRing {
    const parts = text.split(/[,\s]+/).filter((p) => p.length > 0);
    return new KeyRing(parts.map(parseKey));
  }

  /** The ring from an environment variable, or undefined when it is unset. */
  static fromEnv(env: Record<string, string | undefined> = process.env, name = STATE_KEYS_ENV): KeyRing | undefined {
    const text = env[name];
    return text === undefined || text.trim() === '' ? undefined : KeyRing.parse(text);
  }

  /** A random key that lives and dies with this process. */
  static ephemeral(): KeyRing {
    return new KeyRing([{ id: `p${randomBytes(4).toString('hex')}`, secret: randomBytes(32) }], true);
  }

  get sealing(): StateKey {
    return this.keys[0]!;
  }

  find(id: string): StateKey | undefined {
    return this.byId.get(id);
  }
}

/** A new key in the text form the ring reads (what `tessera keygen` prints). */
export function generateStateKey(id = `k${randomBytes(3).toString('hex')}`): string {
  if (!KEY_ID.test(id)) throw new TypeError('Key ids hold letters, digits, "_" and "-" (1 to 32 characters)');
  return `${id}:${randomBytes(32).toString('base64url')}`;
}
