/** The stores several instances must share to take any request: give the same ones to every instance (e.g. `redisStores()`). */

import type { ChangeBus } from './change-bus.js';
import type { EventStore } from './event-store.js';
import type { RedemptionStore } from './redemption-store.js';
import type { SessionBus } from './session-bus.js';
import type { SessionStore } from './session-store.js';
import type { TaskStore } from './task-store.js';

export interface SharedStores {
  /** Single-use states and rounds that ran a `ctx.once` step (`state.redemptions`). */
  redemptions?: RedemptionStore;
  /** Tasks (`tasks.store`). */
  tasks?: TaskStore;
  /** 2025-11-25 sessions (`legacy.store`). */
  sessions?: SessionStore;
  /** What instances tell each other about the 2025-11-25 sessions they hold (`legacy.bus`). */
  sessionBus?: SessionBus;
  /** The replay buffer of resumable SSE streams of 2025-11-25 sessions (`legacy.events`). */
  events?: EventStore;
  /** List changes and resource updates (`changes`). */
  changes?: ChangeBus;
}
