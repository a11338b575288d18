/**
 * The `mimeType` of a skill file, from its extension (SKILL.md is
 * text/markdown), and whether `resources/read` can carry it as text: a
 * textual type whose bytes are valid UTF-8 goes as `text` (the same bytes
 * come back when a client encodes it), anything else as a base64 `blob`.
 */

const BY_EXTENSION: Readonly<Record<string, string>> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  xml: 'application/xml',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/x-typescript',
  py: 'text/x-python',
  sh: 'application/x-sh',
  rb: 'text/x-ruby',
  go: 'text/x-go',
  rs: 'text/x-rust',
  java: 'text/x-java',
  sql: 'application/sql',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  zip: 'application/zip',
};

const TEXTUAL_APPLICATION = new Set(['application/json', 'application/xml', 'application/yaml', 'application/toml', 'application/x-sh', 'application/sql', 'image/svg+xml']);

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text of `bytes` when they are valid UTF-8 (a byte-order mark kept, so the text encodes back to the same bytes), else undefined. */
export function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** The media type of a file: by its extension, else text/plain for UTF-8 text and application/octet-stream for anything else. */
export function mediaTypeOf(path: string, bytes: Uint8Array): string {
  const dot = path.lastIndexOf('.');
  const known = dot > path.lastIndexOf('/') ? BY_EXTENSION[path.slice(dot + 1).toLowerCase()] : undefined;
  return known ?? (utf8Text(bytes) === undefined ? 'application/octet-stream' : 'text/plain');
}

/** Whether files of this type are read as text (when their bytes are UTF-8). */
export function isTextual(mimeType: string): boolean {
  return mimeType.startsWith('text/') || TEXTUAL_APPLICATION.has(mimeType);
}
