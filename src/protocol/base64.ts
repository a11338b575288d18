/** Base64 over UTF-8 without Node's Buffer, so the protocol layer runs on any web-standard runtime. */

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** Throws on characters outside the Base64 alphabet. */
export function base64ToBytes(b64: string): Uint8Array {
  const binary = atob(b64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function utf8ToBase64(text: string): string {
  return bytesToBase64(encoder.encode(text));
}

/** Decodes Base64 that must hold UTF-8; throws when either layer is malformed. */
export function base64ToUtf8(b64: string): string {
  return strictDecoder.decode(base64ToBytes(b64));
}
