/**
 * What every benchmark server exposes, in one place, so the Tessera, official
 * SDK and bare servers publish the same tools, ask the same questions and
 * answer with the same texts. The servers build their SDK-specific
 * registrations from these values; the load generator builds its requests and
 * checks from them.
 */

/** `tools/list` returns exactly this many tools: the three working tools plus fillers. */
export const LISTED_TOOL_COUNT = 50;

export const ECHO_TOOL = 'echo';
export const CONFIRM_TOOL = 'confirm';
export const WIZARD_TOOL = 'wizard';

/** The one form question of the two-round MRTR flow, under this inputRequests key. */
export const CONFIRM_KEY = 'confirm';
export const confirmMessage = (item: string): string => `Approve ${item}?`;
export const confirmedText = (item: string): string => `Approved ${item}.`;
export const declinedText = (item: string): string => `Declined ${item}.`;

/** The three-round flow: ask a name, reserve once, ask a colour, then finish. */
export const WIZARD_NAME_KEY = 'name';
export const WIZARD_COLOR_KEY = 'color';
export const WIZARD_NAME_MESSAGE = 'Who is the order for?';
export const WIZARD_COLOR_MESSAGE = 'Which colour?';
export const wizardText = (order: string, name: string, color: string, reservation: string): string =>
  `Order ${order} for ${name} in ${color}: reservation ${reservation}.`;

/** The side effect the `once` step stands for: each call makes a new reservation id. */
export function makeReservations(): { reserve(order: string): string; readonly count: number } {
  let count = 0;
  return {
    reserve: (order) => `${order}-r${++count}`,
    get count() {
      return count;
    },
  };
}

export interface FillerTool {
  name: string;
  description: string;
}

/** The tools that only exist to make `tools/list` 50 entries long; each takes `{query, limit?}`. */
export const FILLER_TOOLS: readonly FillerTool[] = Array.from({ length: LISTED_TOOL_COUNT - 3 }, (_, i) => {
  const n = String(i + 1).padStart(2, '0');
  return { name: `lookup_${n}`, description: `Looks up records in catalogue ${n} that match a query.` };
});

export const FILLER_QUERY_DESCRIPTION = 'What to look for';
export const FILLER_LIMIT_DESCRIPTION = 'Most records to return';

export const SERVER_VERSION = '0.0.0-bench';

/** The arguments and answers the load generator sends (the bare server answers them with fixed bodies). */
export const ECHO_TEXT = 'hello from the load generator';
export const CONFIRM_ITEM = 'release-42';
export const WIZARD_ORDER = 'order-7';
export const WIZARD_NAME_ANSWER = 'Ada';
export const WIZARD_COLOR_ANSWER = 'teal';
