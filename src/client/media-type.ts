/**
 * The media type of a `Content-Type` header: its type/subtype, lower-cased
 * and without parameters, since media types are case-insensitive (RFC 9110
 * §8.3.1): `Text/Event-Stream; charset=utf-8` is `text/event-stream`.
 */

export function mediaType(contentType: string | null | undefined): string {
  if (!contentType) return '';
  const semicolon = contentType.indexOf(';');
  return (semicolon < 0 ? contentType : contentType.slice(0, semicolon)).trim().toLowerCase();
}

export const EVENT_STREAM = 'text/event-stream';
export const JSON_MEDIA_TYPE = 'application/json';
