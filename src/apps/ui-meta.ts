/**
 * MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`, stable 2026-01-26): the
 * names and the `_meta.ui` shapes both sides use, and how to read a tool's
 * link to its app from untrusted JSON. The server writes these (apps/server/),
 * hosts read them (apps/host/), the CLI marks tools that have one.
 */

import { isObject } from '../protocol/guards.js';

/** The extension's identifier, in client and server capabilities. */
export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of an app's HTML resource. */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The revision of the app ↔ host protocol (`ui/initialize`) this package speaks. */
export const APPS_PROTOCOL_VERSION = '2026-01-26';

/** Who may use a tool: the model (the host lists it to the agent), the app (the host lets the app call it). */
export type ToolVisibility = 'model' | 'app';

/** The origins an app's page may reach, each list mapped to CSP directives by the host. */
export interface AppCsp {
  /** fetch, XHR and WebSocket (`connect-src`); none when empty. */
  connectDomains?: string[];
  /** Scripts, styles, images, fonts and media (`script-src`, `style-src`, `img-src`, `font-src`, `media-src`). */
  resourceDomains?: string[];
  /** Nested iframes (`frame-src`); none when empty. */
  frameDomains?: string[];
  /** `<base href>` (`base-uri`); the document's own when empty. */
  baseUriDomains?: string[];
}

/** Browser features an app asks for (the iframe's `allow`); hosts may refuse them. */
export interface AppPermissions {
  camera?: Record<string, never>;
  microphone?: Record<string, never>;
  geolocation?: Record<string, never>;
  clipboardWrite?: Record<string, never>;
}

/** An app resource's `_meta.ui`: how the host should sandbox and frame it. */
export interface AppResourceUi {
  csp?: AppCsp;
  permissions?: AppPermissions;
  /** A dedicated origin for the app's sandbox, in the form the host documents. */
  domain?: string;
  /** Whether the host should draw a border and background around it (the host decides when absent). */
  prefersBorder?: boolean;
}

/** A tool's `_meta.ui`: the app that renders its results, and who may use it. */
export interface AppToolUi {
  resourceUri?: string;
  /** Default: both. */
  visibility?: ToolVisibility[];
}

const BOTH: readonly ToolVisibility[] = ['model', 'app'];
/** The spec's first form of the link, deprecated but still read. */
const FLAT_RESOURCE_URI = 'ui/resourceUri';

/** The `ui://` URI of the app a tool links (`_meta.ui.resourceUri`, else the deprecated `_meta["ui/resourceUri"]`), or undefined. */
export function appUriOf(tool: { _meta?: Record<string, unknown> }): string | undefined {
  const meta = tool._meta;
  if (!isObject(meta)) return undefined;
  const nested = isObject(meta.ui) ? meta.ui.resourceUri : undefined;
  const uri = nested ?? meta[FLAT_RESOURCE_URI];
  return typeof uri === 'string' && uri.startsWith('ui://') ? uri : undefined;
}

/** Who may use a tool, as its `_meta.ui.visibility` says (both when absent; unknown entries are ignored). */
export function visibilityOf(tool: { _meta?: Record<string, unknown> }): readonly ToolVisibility[] {
  const ui = isObject(tool._meta) && isObject(tool._meta.ui) ? tool._meta.ui : undefined;
  if (!ui || !Array.isArray(ui.visibility)) return BOTH;
  return BOTH.filter((v) => (ui.visibility as unknown[]).includes(v));
}

/** Whether a client's capabilities say it renders apps: the extension, with this MIME type among its `mimeTypes`. */
export function rendersApps(capabilities: { extensions?: Record<string, unknown> } | undefined): boolean {
  const ui = capabilities?.extensions?.[UI_EXTENSION];
  return isObject(ui) && Array.isArray(ui.mimeTypes) && ui.mimeTypes.includes(APP_MIME_TYPE);
}
