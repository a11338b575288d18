/**
 * What each question needs the client to have declared on this very request
 * (never inferred from earlier requests or rounds).
 */

import { McpError } from './errors.js';
import type { ClientCapabilities, InputRequest } from './types.js';
import { InputMethod } from './methods.js';

/** The capabilities an input request needs that `declared` lacks; undefined when it may be asked. */
export function missingFor(request: InputRequest, declared: ClientCapabilities): ClientCapabilities | undefined {
  switch (request.method) {
    case InputMethod.Elicit: {
      const elicitation = declared.elicitation as { form?: object; url?: object } | undefined;
      if (request.params.mode === 'url') return elicitation?.url ? undefined : { elicitation: { url: {} } };
      // `elicitation: {}` means form only; a client declaring only `url` cannot take forms.
      const formOk = elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
      return formOk ? undefined : { elicitation: { form: {} } };
    }
    case InputMethod.CreateMessage: {
      const sampling = declared.sampling as { tools?: object; context?: object } | undefined;
      const params = request.params;
      const needsTools = params.tools !== undefined || params.toolChoice !== undefined;
      const needsContext = params.includeContext !== undefined && params.includeContext !== 'none';
      const missing: { tools?: object; context?: object } = {};
      if (!sampling || (needsTools && !sampling.tools)) {
        if (needsTools) missing.tools = {};
      }
      if (needsContext && !sampling?.context) missing.context = {};
      if (sampling && Object.keys(missing).length === 0) return undefined;
      return { sampling: missing };
    }
    case InputMethod.ListRoots:
      return declared.roots ? undefined : { roots: {} };
  }
}

/** Merges several missing-capability objects into one `requiredCapabilities` value. */
export function mergeCapabilities(parts: readonly ClientCapabilities[]): ClientCapabilities {
  const merged: Record<string, Record<string, object>> = {};
  for (const part of parts) {
    for (const [name, value] of Object.entries(part)) {
      merged[name] = { ...(merged[name] ?? {}), ...(value as Record<string, object>) };
    }
  }
  return merged as ClientCapabilities;
}

/** The capabilities named in a requiredCapabilities value, for a message: `elicitation.form`, `extensions.<id>`… */
function describeCapabilities(required: ClientCapabilities): string {
  const names: string[] = [];
  for (const [name, value] of Object.entries(required)) {
    const parts = value !== null && typeof value === 'object' ? Object.keys(value) : [];
    if (parts.length === 0) names.push(name);
    else for (const part of parts) names.push(`${name}.${part}`);
  }
  return names.join(', ');
}

/**
 * The one -32021: what the request needs and did not declare, all of it at
 * once, in `data.requiredCapabilities` (the client can declare it and retry).
 */
export function missingCapabilityError(missing: readonly ClientCapabilities[]): McpError {
  const required = mergeCapabilities(missing);
  return McpError.missingCapability(`This request needs client capabilities it did not declare: ${describeCapabilities(required)}`, required);
}

/** Throws the -32021 for every input request `declared` does not allow; asks nothing when one is missing. */
export function requireCapabilities(requests: Iterable<InputRequest>, declared: ClientCapabilities): void {
  const missing: ClientCapabilities[] = [];
  for (const request of requests) {
    const need = missingFor(request, declared);
    if (need) missing.push(need);
  }
  if (missing.length > 0) throw missingCapabilityError(missing);
}

/** The kinds of question a handler may declare it asks (`asks` on a tool, prompt or resource). */
export type AskKind = 'form' | 'url' | 'sampling' | 'roots';

/** A question of each kind, as plain as it comes, to read what the kind needs off `missingFor`. */
const PLAINEST: Readonly<Record<AskKind, InputRequest>> = {
  form: { method: InputMethod.Elicit, params: { mode: 'form', message: '', requestedSchema: { type: 'object', properties: {} } } },
  url: { method: InputMethod.Elicit, params: { mode: 'url', message: '', url: 'https://example.invalid/' } },
  sampling: { method: InputMethod.CreateMessage, params: { messages: [], maxTokens: 1 } },
  roots: { method: InputMethod.ListRoots },
};

/** What `declared` lacks for questions of these kinds (none when it covers them all). */
export function missingForKinds(kinds: readonly AskKind[], declared: ClientCapabilities): ClientCapabilities[] {
  return kinds.map((kind) => missingFor(PLAINEST[kind], declared)).filter((m): m is ClientCapabilities => m !== undefined);
}
