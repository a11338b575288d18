/**
 * The crypto port on Node's `node:crypto` (also offered by Bun and Deno): the
 * same operations as WebCrypto, synchronous underneath, several times faster
 * per requestState. The module is handed in (see crypto.ts), never imported,
 * and typed here by the few members used, so no `node:*` types leak out.
 */

import type { CryptoPort } from './crypto-port.js';

interface GcmCipher {
  setAAD(aad: Uint8Array): unknown;
  update(data: Uint8Array): Uint8Array;
  final(): Uint8Array;
}

export interface NodeCryptoModule {
  createCipheriv(algorithm: 'aes-256-gcm', key: Uint8Array, iv: Uint8Array): GcmCipher & { getAuthTag(): Uint8Array };
  createDecipheriv(algorithm: 'aes-256-gcm', key: Uint8Array, iv: Uint8Array): GcmCipher & { setAuthTag(tag: Uint8Array): unknown };
  createHash(algorithm: 'sha256'): { update(text: string, encoding: 'utf8'): { digest(): Uint8Array } };
  randomFillSync<T extends Uint8Array>(buffer: T): T;
}

interface NodeBufferClass {
  from(data: Uint8Array | ArrayBuffer | string, encoding?: 'base64url'): Uint8Array & { toString(encoding: 'base64url'): string };
  concat(parts: readonly Uint8Array[]): Uint8Array;
}

const TAG_BYTES = 16;

export function nodeCryptoPort(crypto: NodeCryptoModule): CryptoPort {
  const process = (globalThis as { process?: { getBuiltinModule?(id: string): unknown } }).process;
  const { Buffer } = process!.getBuiltinModule!('node:buffer') as { Buffer: NodeBufferClass };
  const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer as ArrayBuffer).subarray(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as Uint8Array & { toString(encoding: 'base64url'): string };
  return {
    name: 'node',
    randomBytes: (length) => crypto.randomFillSync(new Uint8Array(length)),
    sha256: (text) => Promise.resolve(crypto.createHash('sha256').update(text, 'utf8').digest()),
    aesGcmSeal(key, iv, aad, plaintext) {
      const cipher = crypto.createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(aad);
      return Promise.resolve(Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]));
    },
    aesGcmOpen(key, iv, aad, sealed) {
      if (sealed.length < TAG_BYTES) return Promise.resolve(undefined);
      try {
        const decipher = crypto.createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAAD(aad);
        decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
        return Promise.resolve(Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]));
      } catch {
        return Promise.resolve(undefined);
      }
    },
    base64urlEncode: (bytes) => asBuffer(bytes).toString('base64url'),
    base64urlDecode: (text) => Buffer.from(text, 'base64url'),
  };
}
