/**
 * The sealing benches' ledger: like the wizard's after round 2, padded (inside
 * the `once` result) to exactly `size` bytes of JSON. `digestOf` is handed in,
 * so a bench can take it from another build (seal-split.ts --against).
 */

export async function ledgerOfSize(size: number, digestOf: (value: unknown) => Promise<string>): Promise<Record<string, unknown>> {
  const [nameDigest, colorDigest] = [await digestOf({ q: 'name' }), await digestOf({ q: 'color' })];
  const make = (padding: string): Record<string, unknown> => ({
    a: { name: [nameDigest, { action: 'accept', content: { name: 'Ada' } }] },
    p: { color: colorDigest },
    o: { reserve: [`order-7-r1${padding}`] },
  });
  const bare = JSON.stringify(make('')).length;
  if (size < bare) throw new Error(`a ledger takes at least ${bare} bytes`);
  return make('x'.repeat(size - bare));
}
