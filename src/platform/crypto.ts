/**
 * The crypto port: everything Tessera needs of cryptography (AES-256-GCM,
 * SHA-256, random bytes, base64url) behind one interface, so the library runs
 * on any web-standard runtime. WebCrypto is the portable implementation; on
 * Node.js (and runtimes that offer its `node:crypto`) a faster one is used,
 * reached through `process.getBuiltinModule` so no bundle ever sees a
 * `node:*` import. Both produce the same bytes: either opens what the other sealed.
 */

import type { CryptoPort } from './crypto-port.js';
import { nodeCryptoPort, type NodeCryptoModule } from './node-crypto.js';
import { webCryptoPort } from './web-crypto.js';

export type { CryptoPort } from './crypto-port.js';


interface ProcessWithBuiltins {
  getBuiltinModule?(id: string): unknown;
}

let chosen: CryptoPort | undefined;

/** The port for this runtime, chosen on first use (never at module load: Workers refuse work at global scope). */
export function platformCrypto(): CryptoPort {
  if (!chosen) {
    const process = (globalThis as { process?: ProcessWithBuiltins }).process;
    const node = process?.getBuiltinModule?.('node:crypto') as NodeCryptoModule | undefined;
    const buffer = process?.getBuiltinModule?.('node:buffer') as { Buffer: Parameters<typeof nodeCryptoPort>[1] } | undefined;
    chosen = node?.createCipheriv && buffer?.Buffer ? nodeCryptoPort(node, buffer.Buffer) : webCryptoPort();
  }
  return chosen;
}

/** A random id: `bytes` random bytes in base64url. */
export function randomId(bytes = 16): string {
  const port = platformCrypto();
  return port.base64urlEncode(port.randomBytes(bytes));
}

/** A random RFC 4122 version 4 UUID. */
export function randomUuid(): string {
  return globalThis.crypto.randomUUID();
}
