/**
 * The state keys from the environment (TESSERA_STATE_KEYS): read when set,
 * absent when unset, and absent — not a failed request — where the runtime
 * refuses the read (Deno without --allow-env throws NotCapable on access).
 */

import { describe, expect, it } from 'vitest';
import { generateStateKey, KeyRing } from '../../src/index.js';

describe('KeyRing.fromEnv', () => {
  it('reads the ring from the variable, and nothing when it is unset or blank', () => {
    const key = generateStateKey('env1');
    expect(KeyRing.fromEnv({ TESSERA_STATE_KEYS: key })?.sealing.id).toBe('env1');
    expect(KeyRing.fromEnv({})).toBeUndefined();
    expect(KeyRing.fromEnv({ TESSERA_STATE_KEYS: '  ' })).toBeUndefined();
  });

  it('treats a refused read as unset', () => {
    const refusing = new Proxy({} as Record<string, string | undefined>, {
      get: (_target, name) => {
        throw new Error(`Requires env access to "${String(name)}", run again with the --allow-env flag`);
      },
    });
    expect(KeyRing.fromEnv(refusing)).toBeUndefined();
  });
});
