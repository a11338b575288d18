/** Everything Tessera needs of cryptography, as one interface (implementations: web-crypto.ts, node-crypto.ts; the choice: crypto.ts). */

export interface CryptoPort {
  /** Which implementation this is (for logs and tests). */
  readonly name: 'node' | 'webcrypto';
  /** Cryptographically strong random bytes. */
  randomBytes(length: number): Uint8Array;
  /** SHA-256 of the UTF-8 bytes of `text`, in unpadded base64url. */
  sha256Base64url(text: string): Promise<string>;
  /** SHA-256 of the UTF-8 bytes of `data` (or of the bytes themselves), the 32 raw bytes. */
  sha256(data: string | Uint8Array): Promise<Uint8Array>;
  /**
   * AES-256-GCM over `head` followed by the UTF-8 bytes of `text`: unpadded base64url of iv ‖ ciphertext ‖ 16-byte tag.
   * The two AES-GCM calls answer at once where the runtime can (node:crypto) and with a Promise where it cannot
   * (WebCrypto): a caller awaits only a Promise, since every await is a turn of the microtask queue.
   */
  aesGcmSeal(key: Uint8Array, iv: Uint8Array, aad: Uint8Array, head: Uint8Array, text: string): string | Promise<string>;
  /** Opens `sealed` (ciphertext ‖ tag) into bytes; undefined when the tag does not verify (tampered, truncated, other key). */
  aesGcmOpen(key: Uint8Array, iv: Uint8Array, aad: Uint8Array, sealed: Uint8Array): Uint8Array | undefined | Promise<Uint8Array | undefined>;
  /** Unpadded base64url. */
  base64urlEncode(bytes: Uint8Array): string;
  /** Decodes base64url (the caller has checked the alphabet). */
  base64urlDecode(text: string): Uint8Array;
}
