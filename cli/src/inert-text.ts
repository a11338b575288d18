/**
 * Text that came from a server (results, errors, questions, names, URLs, its
 * stderr), made inert before it reaches the terminal: a control character is
 * shown as an escape (`\x1b`, `\u009b`), never interpreted, so a server can
 * neither set the window title, write the clipboard, clear the screen, hide
 * what follows (conceal), ring the bell, nor reorder text with bidi controls.
 * Newlines and tabs stay; a lone carriage return (which overwrites the line) does not.
 */

// C0 but tab and newline, DEL, C1 (U+009B is a one-byte CSI), and the bidi embedding, override and isolate controls.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function escaped(char: string): string {
  const code = char.charCodeAt(0);
  if (char === '\n') return '\\n';
  if (char === '\t') return '\\t';
  if (char === '\r') return '\\r';
  return code < 0x80 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** Server text for the terminal: newlines and tabs kept (CRLF read as a newline), every other control shown escaped. */
export function inert(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(UNSAFE, escaped);
}

/** The same for text that must stay on one line (a name, a title, a domain): newlines shown escaped too. */
export function inertLine(text: string): string {
  return text.replace(UNSAFE_IN_LINE, escaped);
}

/**
 * JSON for the terminal: the same value, with the characters JSON.stringify
 * leaves raw (DEL, C1, bidi controls, U+2028/9) written as \u escapes.
 */
export function inertJson(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space) ?? 'undefined';
  return text.replace(/[\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A server's structure with every string in it (keys too) made inert, for printing as text. */
export function inertDeep<T>(value: T): T {
  if (typeof value === 'string') return inert(value) as T;
  if (Array.isArray(value)) return value.map((item) => inertDeep(item)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [inert(key), inertDeep(item)])) as T;
  }
  return value;
}
