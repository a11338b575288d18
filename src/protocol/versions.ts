/** Protocol revisions this project speaks. */

export const LATEST_PROTOCOL_VERSION = '2026-07-28';

/** Revisions served statelessly, with per-request `_meta` (the "modern" era). */
export const MODERN_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION];

/** Handshake-based revisions (the "legacy" era), spoken through `initialize`; the client accepts all of them. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];

/**
 * The legacy revisions the server negotiates. 2025-03-26 obliges a server to
 * take JSON-RPC batches, which this one does not: a client asking for it is
 * offered 2025-11-25 instead.
 */
export const SERVED_LEGACY_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18'];
