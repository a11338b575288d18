/**
 * What every registry keeps the same way (tools, prompts, resources, resource
 * templates): entries by key in registration order, a remover that tells of
 * the change, and the descriptors listed in pages, the list made once per
 * change. Each registry checks and shapes what it adds itself.
 */

import { paginate, type Page } from './pagination.js';

export class Catalog<E extends { readonly descriptor: D }, D> {
  private readonly entries = new Map<string, E>();
  /** The entries by key, in registration order (read directly: a lookup is on every request's path). */
  readonly byKey: ReadonlyMap<string, E> = this.entries;
  private descriptors: D[] | undefined;

  constructor(
    /** What the entries are called in cursors (`tools`, `prompts`, `resources`, `templates`). */
    private readonly list: string,
    /** The key of a descriptor, as cursors name it. */
    private readonly keyOf: (descriptor: D) => string,
    private readonly onChange: () => void,
  ) {}

  get size(): number {
    return this.byKey.size;
  }

  /** Adds `entry` under `key` (the registry checked it is free); returns what removes it again. */
  add(key: string, entry: E): () => void {
    this.entries.set(key, entry);
    this.changed();
    return () => {
      if (this.entries.delete(key)) this.changed();
    };
  }

  /** One page of the descriptors in registration order: of every entry, or of those `shown` keeps. */
  page(cursor: unknown, pageSize: number, shown?: (entry: E) => boolean): Page<D> {
    const all = shown ? [...this.byKey.values()].filter(shown).map((e) => e.descriptor) : (this.descriptors ??= [...this.byKey.values()].map((e) => e.descriptor));
    return paginate(this.list, all, this.keyOf, cursor, pageSize);
  }

  private changed(): void {
    this.descriptors = undefined;
    this.onChange();
  }
}
