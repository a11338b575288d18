/** The requestState set-up of a server: its key ring, sealer, redemption store, and the warning for a per-process key. */

import { InputRounds } from '../mrtr/input-rounds.js';
import { KeyRing } from '../mrtr/keyring.js';
import { StateSealer } from '../mrtr/sealed-state.js';
import { MemoryRedemptionStore } from '../stores/redemption-store.js';
import type { ServerLogger, StateOptions } from './options.js';

let warnedEphemeralKey = false;

export function inputRoundsFor(options: StateOptions, serverName: string, logger: ServerLogger): InputRounds {
  const configured = typeof options.keys === 'string' ? KeyRing.parse(options.keys) : options.keys;
  const keys = configured ?? KeyRing.fromEnv() ?? KeyRing.ephemeral();
  return new InputRounds({
    sealer: new StateSealer({ keys, ttlMs: options.ttlMs, maxBytes: options.maxBytes, clock: options.clock }),
    audience: options.audience ?? serverName,
    redemptions: options.redemptions ?? new MemoryRedemptionStore(options.clock),
    log: (message) => logger.warn(message),
    beforeSeal: keys.ephemeral
      ? (round) => {
          // Over stdio or in process the retry comes back to this process, whose own key opens it.
          if (warnedEphemeralKey || !round.acrossInstances) return;
          warnedEphemeralKey = true;
          logger.warn(
            'WARNING: no requestState key is configured, so this process made its own. Other instances cannot open ' +
              'state it seals, and restarting it breaks flows in flight. Set TESSERA_STATE_KEYS (make a key with ' +
              '`tessera keygen`) or the `state.keys` option on every instance.',
          );
        }
      : undefined,
  });
}
