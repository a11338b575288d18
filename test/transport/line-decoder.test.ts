/**
 * stdio framing (2026-07-28 transports, stdio): messages are delimited by
 * newlines and contain none. However the bytes arrive — several messages in
 * one chunk, one message over several chunks, CRLF endings — each message is
 * delivered once, in order; a line that is not JSON is delivered as a parse
 * failure with its text; a line past the limit is dropped as unparsable.
 */

import { describe, expect, it } from 'vitest';
import { LineDecoder } from '../../src/transport/link.js';

function decoder(maxLineBytes?: number) {
  const got: Array<{ message: unknown; raw?: string }> = [];
  const lines = new LineDecoder((message, raw) => got.push(raw === undefined ? { message } : { message, raw }), maxLineBytes);
  return { lines, got };
}

describe('LineDecoder', () => {
  it('delivers each message of a chunk once, in order, and keeps a partial one for the next chunk', () => {
    const { lines, got } = decoder();
    lines.push('{"a":1}\n{"b":2}\r\n\n{"c":');
    expect(got).toEqual([{ message: { a: 1 } }, { message: { b: 2 } }]);
    lines.push('3}');
    expect(got).toHaveLength(2);
    lines.push('\n{"d":4}\n');
    expect(got.map((g) => g.message)).toEqual([{ a: 1 }, { b: 2 }, { c: 3 }, { d: 4 }]);
  });

  it('a line that is not JSON is a parse failure carrying its text; the next line is read as usual', () => {
    const { lines, got } = decoder();
    lines.push('not json\n{"ok":true}\n');
    expect(got).toEqual([{ message: undefined, raw: 'not json' }, { message: { ok: true } }]);
  });

  it('a listener that throws does not make a line come twice', () => {
    const seen: unknown[] = [];
    const lines = new LineDecoder((message) => {
      seen.push(message);
      if (seen.length === 1) throw new Error('listener failed');
    });
    expect(() => lines.push('{"n":1}\n')).toThrow('listener failed');
    lines.push('{"n":2}\n');
    expect(seen).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('a line longer than the limit is dropped and reported as unparsable', () => {
    const { lines, got } = decoder(16);
    lines.push('{"long":"' + 'x'.repeat(32));
    expect(got).toEqual([{ message: undefined, raw: '' }]);
    lines.push('"}\n{"next":1}\n');
    expect(got.at(-1)).toEqual({ message: { next: 1 } });
  });

  it('a message split over many chunks, even inside a multi-byte character\'s string, is delivered once, whole', () => {
    const { lines, got } = decoder();
    const message = { text: 'é'.repeat(1000) + '✓'.repeat(1000) };
    const line = `${JSON.stringify(message)}\n`;
    for (let at = 0; at < line.length; at += 7) lines.push(line.slice(at, at + 7));
    expect(got).toEqual([{ message }]);
  });

  it('lines that are empty or only whitespace are skipped; whitespace around a message is allowed', () => {
    const { lines, got } = decoder();
    lines.push('\n\r\n   \n\t\r\n  {"a":1}  \r\n{"b":2}\n');
    expect(got).toEqual([{ message: { a: 1 } }, { message: { b: 2 } }]);
  });

  it('a newline that arrives alone ends the line the earlier chunks began', () => {
    const { lines, got } = decoder();
    lines.push('{"a":');
    lines.push('1}');
    lines.push('\r');
    expect(got).toHaveLength(0);
    lines.push('\n');
    expect(got).toEqual([{ message: { a: 1 } }]);
  });

  it('the limit counts the bytes of a line kept over several chunks', () => {
    const { lines, got } = decoder(16);
    lines.push('{"a":"12345');
    lines.push('67890');
    expect(got).toHaveLength(0);
    lines.push('abc');
    expect(got).toEqual([{ message: undefined, raw: '' }]);
  });
});
