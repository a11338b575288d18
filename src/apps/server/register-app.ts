/**
 * `registerApp`: an app's `ui://` resource (`text/html;profile=mcp-app`, its
 * CSP, permissions, domain and border preference in `_meta.ui` of both the
 * listing and the content) and the tools linked to it (`_meta.ui.resourceUri`,
 * `visibility`), through the server's ordinary registration.
 */

import type { Icon, ServerCapabilities } from '../../protocol/types.js';
import type { SchemaInput } from '../../schema/resolve.js';
import type { RequestContext } from '../../server/context.js';
import type { ResourceDefinition, ResourceHandler } from '../../server/resources.js';
import type { ToolDefinition, ToolHandler } from '../../server/tools.js';
import { appContentSecurityPolicy } from '../csp.js';
import { APP_MIME_TYPE, UI_EXTENSION, type AppCsp, type AppPermissions, type AppResourceUi, type ToolVisibility } from '../ui-meta.js';

export interface AppDefinition {
  /** Where hosts read it: a `ui://` URI. */
  uri: string;
  name: string;
  title?: string;
  description?: string;
  icons?: Icon[];
  /** The page: a whole HTML5 document, scripts and styles inline (or from `csp.resourceDomains`); or a function that makes it on each read. */
  html: string | ((ctx: RequestContext) => string | Promise<string>);
  /** The origins the page may reach; none by default. */
  csp?: AppCsp;
  /** Browser features it asks for (hosts may refuse them). */
  permissions?: AppPermissions;
  /** A dedicated sandbox origin, in the form the host documents. */
  domain?: string;
  /** Whether the host should draw a border and background around it. */
  prefersBorder?: boolean;
  /** OAuth scopes a caller's token must grant to read the page. */
  scopes?: readonly string[];
}

export interface AppToolDefinition<S extends SchemaInput | undefined = undefined> extends ToolDefinition<S> {
  /** Who may use the tool: `['model', 'app']` (the default), `['model']`, or `['app']` (the app's own: kept from the model). */
  visibility?: readonly ToolVisibility[];
}

/** An app registered on a server: link tools to it, or remove it with its tools. */
export interface RegisteredApp {
  readonly uri: string;
  /** Registers a tool linked to this app (as `server.tool` does, plus `visibility`); returns the app, to link more. */
  tool<S extends SchemaInput | undefined = undefined>(name: string, definition: AppToolDefinition<S>, handler: ToolHandler<S>): RegisteredApp;
  /** Removes the resource and every tool linked through this app. */
  remove(): void;
}

/** What registerApp needs of the server (McpServer has it). */
export interface AppServer {
  tool<S extends SchemaInput | undefined = undefined>(name: string, definition: ToolDefinition<S>, handler: ToolHandler<S>): () => void;
  resource(definition: ResourceDefinition, handler: ResourceHandler): () => void;
  capabilities(): ServerCapabilities;
}

const VISIBILITIES: readonly ToolVisibility[] = ['model', 'app'];

function checkUri(uri: string): void {
  if (!/^ui:\/\/[^\s]+$/.test(uri)) throw new TypeError(`App "${uri}": the URI must start with ui:// and hold no whitespace`);
}

/** The resource's `_meta.ui`, from the definition (refusing CSP entries a host would refuse). */
function resourceUi(app: AppDefinition): AppResourceUi {
  const ui: AppResourceUi = {};
  if (app.csp !== undefined) {
    const { refused } = appContentSecurityPolicy(app.csp);
    if (refused.length > 0) throw new TypeError(`App "${app.uri}": CSP entries must be scheme://host[:port][/path] sources; refused ${refused.join(', ')}`);
    ui.csp = app.csp;
  }
  if (app.permissions !== undefined) ui.permissions = app.permissions;
  if (app.domain !== undefined) ui.domain = app.domain;
  if (app.prefersBorder !== undefined) ui.prefersBorder = app.prefersBorder;
  return ui;
}

/**
 * Registers an app on a server made with the `apps()` extension, and returns
 * it to link tools to: `registerApp(server, { uri, name, html, csp }).tool('show', {…}, handler)`.
 */
export function registerApp(server: AppServer, app: AppDefinition): RegisteredApp {
  if (server.capabilities().extensions?.[UI_EXTENSION] === undefined) {
    throw new TypeError('registerApp needs the MCP Apps extension: new McpServer(info, { extensions: [apps()] })');
  }
  checkUri(app.uri);
  const ui = resourceUi(app);
  const meta = Object.keys(ui).length > 0 ? { _meta: { ui } } : {};
  const { html } = app;
  const removers: Array<() => void> = [];
  removers.push(
    server.resource(
      {
        uri: app.uri,
        name: app.name,
        mimeType: APP_MIME_TYPE,
        ...(app.title !== undefined ? { title: app.title } : {}),
        ...(app.description !== undefined ? { description: app.description } : {}),
        ...(app.icons !== undefined ? { icons: app.icons } : {}),
        ...(app.scopes !== undefined ? { scopes: app.scopes } : {}),
        ...meta,
      },
      async (uri, ctx) => ({ uri, mimeType: APP_MIME_TYPE, text: typeof html === 'string' ? html : await html(ctx), ...meta }),
    ),
  );
  const registered: RegisteredApp = {
    uri: app.uri,
    tool(name, definition, handler) {
      const { visibility, ...tool } = definition;
      if (visibility !== undefined && (visibility.length === 0 || visibility.some((v) => !VISIBILITIES.includes(v)))) {
        throw new TypeError(`Tool "${name}": visibility must list "model", "app" or both`);
      }
      const existing = tool._meta?.ui;
      const linked = { ...(typeof existing === 'object' && existing !== null ? existing : {}), resourceUri: app.uri, ...(visibility ? { visibility: [...visibility] } : {}) };
      removers.push(server.tool(name, { ...tool, _meta: { ...tool._meta, ui: linked } }, handler));
      return registered;
    },
    remove() {
      for (const remove of removers.splice(0)) remove();
    },
  };
  return registered;
}
