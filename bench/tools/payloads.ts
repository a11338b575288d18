/**
 * What the large-payload workloads need on every server, in one place: a
 * 1 MiB static text resource, a tool that takes 64 KiB of arguments and
 * answers their length, a catalogue of 1,000 tools for the paged listing.
 * Servers register them from these values; the load generator builds
 * requests and checks from them.
 */

import { FILLER_TOOLS, LISTED_TOOL_COUNT } from './catalog.js';

export const BIG_RESOURCE_URI = 'bench://big/1mib.txt';
export const BIG_RESOURCE_NAME = 'big';
export const BIG_RESOURCE_BYTES = 1024 * 1024;
// ASCII without quotes or backslashes, so the JSON text is the resource byte for byte.
export const BIG_RESOURCE_TEXT = 'abcdefghijklmnopqrstuvwxyz012345'.repeat(BIG_RESOURCE_BYTES / 32);

export const LENGTH_TOOL = 'length';
export const BIG_ARGS_BYTES = 64 * 1024;
export const BIG_ARGS_TEXT = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ678901'.repeat(BIG_ARGS_BYTES / 32);
export const lengthText = (length: number): string => String(length);

/** The paged listing: the 50-tool catalogue plus this many more fillers makes 1,000 tools. */
export const MANY_TOOL_COUNT = 1000;
export const EXTRA_FILLER_TOOLS = Array.from({ length: MANY_TOOL_COUNT - LISTED_TOOL_COUNT }, (_, i) => {
  const n = String(i + FILLER_TOOLS.length + 1).padStart(4, '0');
  return { name: `lookup_${n}`, description: `Looks up records in catalogue ${n} that match a query.` };
});
