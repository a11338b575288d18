/**
 * Reading an app's page from the server: `resources/read` of its `ui://`
 * URI, the content with the app MIME type (text, or a base64 blob of UTF-8),
 * and its `_meta.ui` — from the content, else from the resource's listing.
 */

import type { Client } from '../../client/client.js';
import { isObject } from '../../protocol/guards.js';
import type { ResourceContents } from '../../protocol/types.js';
import { APP_MIME_TYPE, type AppResourceUi } from '../ui-meta.js';

export interface AppPage {
  html: string;
  ui: AppResourceUi;
}

/** `text/html;profile=mcp-app`, whatever the case and spacing. */
function isAppType(mimeType: string | undefined): boolean {
  return mimeType !== undefined && mimeType.replace(/\s+/g, '').toLowerCase() === APP_MIME_TYPE;
}

function textOf(content: ResourceContents): string {
  if ('text' in content && typeof content.text === 'string') return content.text;
  if ('blob' in content && typeof content.blob === 'string') return new TextDecoder().decode(Uint8Array.from(atob(content.blob), (c) => c.charCodeAt(0)));
  throw new Error(`The app page ${content.uri} has neither text nor a blob`);
}

export async function readAppPage(client: Client, uri: string, signal?: AbortSignal): Promise<AppPage> {
  const { contents } = await client.readResource(uri, { signal });
  const content = contents.find((c) => c.uri === uri && isAppType(c.mimeType));
  if (!content) throw new Error(`${uri} is not an MCP app page: no content of type ${APP_MIME_TYPE}`);
  const html = textOf(content);
  if (isObject(content._meta) && isObject(content._meta.ui)) return { html, ui: content._meta.ui as AppResourceUi };
  // The listing may carry it instead (a server may also leave the page out of its listing).
  const listed = await client.listAllResources({ signal }).then((resources) => resources.find((r) => r.uri === uri), () => undefined);
  const ui = isObject(listed?._meta) && isObject(listed._meta.ui) ? (listed._meta.ui as AppResourceUi) : {};
  return { html, ui };
}
