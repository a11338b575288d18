/**
 * The context class of one server: the core's RequestExchange, plus the
 * members its extensions add, defined once on a prototype of its own (not
 * per request), so every context has the same shape.
 */

import { RequestExchange, type ServerContext } from './context.js';
import type { ContextMember } from './extension.js';

export type ContextClass = new (...args: ConstructorParameters<typeof RequestExchange>) => ServerContext;

export function contextClass(members: ReadonlyArray<readonly [string, ContextMember]>): ContextClass {
  const Extended = class extends RequestExchange {};
  for (const [name, member] of members) {
    if (name in Extended.prototype) throw new TypeError(`Two extensions, or an extension and the core, both define ctx.${name}`);
    Object.defineProperty(Extended.prototype, name, { value: member, enumerable: false, writable: false });
  }
  // The members just defined are what ContextExtensions declares (each extension augments it with its own).
  return Extended as ContextClass;
}
