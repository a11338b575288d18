/** The crypto port on WebCrypto (`globalThis.crypto`): Node 20+, Bun, Deno, Workers, browsers. */

import { decodeBase64url, encodeBase64url } from './base64url.js';
import type { CryptoPort } from './crypto-port.js';

const TAG_BITS = 128;
const encoder = new TextEncoder();

/** WebCrypto takes only ArrayBuffer-backed views; a view of shared memory is copied first. */
function own(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return isArrayBufferBacked(bytes) ? bytes : new Uint8Array(bytes);
}

function isArrayBufferBacked(bytes: Uint8Array): bytes is Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer;
}

export function webCryptoPort(): CryptoPort {
  const crypto = globalThis.crypto;
  if (!crypto?.subtle) throw new Error('This runtime has no WebCrypto (globalThis.crypto.subtle), which Tessera needs to seal requestState');
  // Imported once per key; the raw bytes are the cache key (a ring keeps the same array for its lifetime).
  const keys = new WeakMap<Uint8Array, Promise<CryptoKey>>();
  const keyFor = (raw: Uint8Array): Promise<CryptoKey> => {
    let key = keys.get(raw);
    if (!key) {
      key = crypto.subtle.importKey('raw', own(raw), 'AES-GCM', false, ['encrypt', 'decrypt']);
      keys.set(raw, key);
    }
    return key;
  };
  const gcm = (iv: Uint8Array, aad: Uint8Array): AesGcmParams => ({ name: 'AES-GCM', iv: own(iv), additionalData: own(aad), tagLength: TAG_BITS });
  return {
    name: 'webcrypto',
    randomBytes: (length) => crypto.getRandomValues(new Uint8Array(length)),
    sha256Base64url: async (text) => encodeBase64url(new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(text)))),
    sha256: async (data) => new Uint8Array(await crypto.subtle.digest('SHA-256', typeof data === 'string' ? encoder.encode(data) : own(data))),
    async aesGcmSeal(key, iv, aad, head, text) {
      const plain = new Uint8Array(head.length + text.length * 3);
      plain.set(head);
      const { written } = encoder.encodeInto(text, plain.subarray(head.length));
      const sealed = new Uint8Array(await crypto.subtle.encrypt(gcm(iv, aad), await keyFor(key), plain.subarray(0, head.length + written)));
      const body = new Uint8Array(iv.length + sealed.length);
      body.set(iv);
      body.set(sealed, iv.length);
      return encodeBase64url(body);
    },
    async aesGcmOpen(key, iv, aad, sealed) {
      try {
        return new Uint8Array(await crypto.subtle.decrypt(gcm(iv, aad), await keyFor(key), own(sealed)));
      } catch {
        return undefined;
      }
    },
    base64urlEncode: encodeBase64url,
    base64urlDecode: decodeBase64url,
  };
}
