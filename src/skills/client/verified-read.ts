/**
 * One skill file read through `resources/read` and checked against the
 * entry that lists it: the raw bytes (a text's UTF-8, a blob's decoded
 * base64) must have the entry's size, then its digest. Nothing unchecked is
 * handed back.
 */

import type { Client } from '../../client/client.js';
import { base64ToBytes } from '../../protocol/base64.js';
import type { RequestOptions } from '../../client/requester.js';
import { digestOf } from '../digest.js';
import type { SkillResource } from '../wire.js';
import { SkillError } from './skill-error.js';

/** A skill file as read and verified. */
export interface SkillFile {
  uri: string;
  mimeType: string | undefined;
  /** The file's raw bytes. */
  bytes: Uint8Array;
  /** The text, when the server sent the file as text. */
  text: string | undefined;
}

const encoder = new TextEncoder();

/** Reads `uri`; with `expected`, verifies size and digest (a mismatch is a SkillError and the content is dropped). */
export async function readSkillFile(client: Client, uri: string, expected: SkillResource | undefined, options?: RequestOptions): Promise<SkillFile> {
  const result = await client.readResource(uri, options);
  const contents = Array.isArray(result.contents) ? result.contents.find((item) => item.uri === uri) : undefined;
  if (!contents) throw new SkillError(`Reading ${uri} returned no contents for it`, 'content', uri);
  let bytes: Uint8Array;
  let text: string | undefined;
  if ('text' in contents && typeof contents.text === 'string') {
    text = contents.text;
    bytes = encoder.encode(text);
  } else if ('blob' in contents && typeof contents.blob === 'string') {
    try {
      bytes = base64ToBytes(contents.blob);
    } catch {
      throw new SkillError(`Reading ${uri} returned a blob that is not base64`, 'content', uri);
    }
  } else {
    throw new SkillError(`Reading ${uri} returned neither text nor a blob`, 'content', uri);
  }
  if (expected) {
    // A size mismatch is a verification failure by itself, whatever the digest would say.
    if (bytes.length !== expected.size) throw new SkillError(`${uri} is ${bytes.length} bytes, but its entry says ${expected.size}: not used`, 'size', uri);
    const digest = await digestOf(bytes);
    if (digest !== expected.digest) throw new SkillError(`${uri} hashes to ${digest}, but its entry says ${expected.digest}: not used`, 'digest', uri);
  }
  return { uri, mimeType: contents.mimeType, bytes, text };
}
