/**
 * Keys for sealing `requestState`. A ring holds one or more AES-256 keys with
 * ids: the first seals, every key opens. To rotate, put the new key first and
 * keep the old one until flows sealed with it have expired; then drop it.
 *
 * Text form (configuration, `TESSERA_STATE_KEYS`): `id:base64url-32-bytes`,
 * several separated by commas, the sealing key first.
 */

import { platformCrypto } from '../platform/crypto.js';

export interface StateKey {
  id: string;
  /** 32 bytes (a Node Buffer is one too). */
  secret: Uint8Array;
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
export const STATE_KEYS_ENV = 'TESSERA_STATE_KEYS';

function parseKey(text: string): StateKey {
  const colon = text.indexOf(':');
  const id = colon < 0 ? '' : text.slice(0, colon).trim();
  const encoded = colon < 0 ? '' : text.slice(colon + 1).trim();
  if (!KEY_ID.test(id)) throw new TypeError('A state key must look like "<id>:<base64url of 32 bytes>" with an id of letters, digits, "_" or "-"');
  const crypto = platformCrypto();
  const unpadded = encoded.replace(/=+$/, '');
  const secret = /^[A-Za-z0-9_-]*$/.test(unpadded) ? crypto.base64urlDecode(unpadded) : new Uint8Array(0);
  if (secret.length !== 32 || crypto.base64urlEncode(secret) !== unpadded) {
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
  static fromEnv(env: Record<string, string | undefined> = processEnv(), name = STATE_KEYS_ENV): KeyRing | undefined {
    const text = readVariable(env, name);
    return text === undefined || text.trim() === '' ? undefined : KeyRing.parse(text);
  }

  /** A random key that lives and dies with this process. */
  static ephemeral(): KeyRing {
    const crypto = platformCrypto();
    return new KeyRing([{ id: `p${hex(crypto.randomBytes(4))}`, secret: crypto.randomBytes(32) }], true);
  }

  get sealing(): StateKey {
    return this.keys[0]!;
  }

  find(id: string): StateKey | undefined {
    return this.byId.get(id);
  }
}

/** A new key in the text form the ring reads (what `tessera keygen` prints). */
export function generateStateKey(id = `k${hex(platformCrypto().randomBytes(3))}`): string {
  if (!KEY_ID.test(id)) throw new TypeError('Key ids hold letters, digits, "_" and "-" (1 to 32 characters)');
  const crypto = platformCrypto();
  return `${id}:${crypto.base64urlEncode(crypto.randomBytes(32))}`;
}

function hex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A variable's value, or undefined where reading it is refused (Deno without --allow-env throws). */
function readVariable(env: Record<string, string | undefined>, name: string): string | undefined {
  try {
    return env[name];
  } catch {
    return undefined;
  }
}

/** The environment where there is one (Node, Bun, Deno's process shim); Workers pass their env explicitly. */
function processEnv(): Record<string, string | undefined> {
  return (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
}
