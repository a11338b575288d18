/** Protocol revisions this project speaks. */

export const LATEST_PROTOCOL_VERSION = '2026-07-28';

/** Revisions served statelessly, with per-request `_meta` (the "modern" era). */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION];

/** Handshake-based revisions (the "legacy" era), served through `initialize`. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];
