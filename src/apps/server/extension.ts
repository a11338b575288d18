/**
 * MCP Apps on the server, as an extension: the `io.modelcontextprotocol/ui`
 * capability, and app-only tools (visibility `["app"]`) kept from clients that
 * render no apps. The spec has the host keep such tools from its model; a
 * client that does not declare the extension has no app to call them, so its
 * model is all that would see them.
 */

import type { ServerCapabilities } from '../../protocol/types.js';
import { packagedExtension, type Extension, type ServerExtension } from '../../server/extension.js';
import { rendersApps, UI_EXTENSION, visibilityOf } from '../ui-meta.js';

const appsExtension: ServerExtension = {
  name: 'apps',
  // Hosts that render apps speak 2025-11-25 as well: they find the extension in `initialize`'s capabilities too.
  advertisedToLegacy: true,
  capabilities: (core: ServerCapabilities): ServerCapabilities => ({ ...core, extensions: { ...core.extensions, [UI_EXTENSION]: {} } }),
  hidesTool: (definition, client) => !visibilityOf(definition).includes('model') && !rendersApps(client),
};

/** The MCP Apps extension, for McpServer's `extensions` option; then `registerApp` adds apps. */
export function apps(): Extension {
  return packagedExtension('apps', () => appsExtension);
}
