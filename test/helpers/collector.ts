/**
 * Full garbage collections inside a test: the test process's own `gc`, or one
 * unlocked at run time (vitest workers start without --expose-gc). For tests
 * that show something is not kept, by heap or by WeakRef.
 */

import v8 from 'node:v8';
import vm from 'node:vm';

function collector(): () => void {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as unknown;
  if (typeof gc !== 'function') throw new Error('Cannot force garbage collection in this process');
  return gc as () => void;
}
export const gc = collector();

/** One turn of the event loop. */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Heap in use after full collections, with pending jobs (finalizers, immediates) let run in between. */
export async function settledHeap(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc();
    await turn();
  }
  return v8.getHeapStatistics().used_heap_size;
}

/**
 * How many of `refs` still reach their object after full collections: up to
 * ten rounds of them while any does (bounded by collections, not by time), as
 * a value the engine still held for a moment (a handle on the stack) goes too.
 */
export async function stillAlive(refs: ReadonlyArray<WeakRef<object>>): Promise<number> {
  let alive = refs.length;
  for (let cycle = 0; cycle < 10 && alive > 0; cycle++) {
    await settledHeap();
    alive = refs.filter((ref) => ref.deref() !== undefined).length;
  }
  return alive;
}
