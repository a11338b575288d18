/** What a host built on the Client does with apps besides showing one: declare it renders them, and keep app-only tools from its model. */

import type { ClientCapabilities, Tool } from '../../protocol/types.js';
import { APP_MIME_TYPE, UI_EXTENSION, visibilityOf } from '../ui-meta.js';

/** The capabilities a host that renders apps declares (the `capabilities` option of its Client). */
export function appsCapabilities(): ClientCapabilities {
  return { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } } };
}

/** The tools the host may give its model: those whose visibility includes `model` (app-only tools are the apps'). */
export function modelTools<T extends Pick<Tool, '_meta'>>(tools: readonly T[]): T[] {
  return tools.filter((tool) => visibilityOf(tool).includes('model'));
}
