/**
 * The client's answers to input requests: elicitation (form and URL), sampling
 * and roots. The capabilities every request declares follow from which
 * handlers are registered.
 */

import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitRequestUrlParams,
  ElicitResult,
  Implementation,
  Root,
} from '../protocol/types.js';

/** What a handler knows about the question it answers. */
export interface InputContext {
  /** The `inputRequests` key. */
  key: string;
  /** The request being retried (`tools/call`…) and its params (`{}` for a task resumed by its id alone). */
  method: string;
  params: Record<string, unknown>;
  /** 1 for the first input round (or a task's first questions); 0 for a question a 2025-era server sent as its own request. */
  round: number;
  /** The task asking, for a question a task asked during its work (answered with `tasks/update`). */
  taskId?: string;
  /** How the question came: an `input_required` round or a task (`modern`), or a 2025-era server's request (`legacy`). */
  era: 'modern' | 'legacy';
  /** Who is asking, as the server identified itself (self-reported). */
  server: Implementation | undefined;
  signal: AbortSignal;
}

export type FormElicitationHandler = (params: ElicitRequestFormParams, context: InputContext) => ElicitResult | Promise<ElicitResult>;
export type UrlElicitationHandler = (params: ElicitRequestUrlParams, context: InputContext) => ElicitResult | Promise<ElicitResult>;
export type SamplingHandler = (
  params: CreateMessageRequestParams,
  context: InputContext,
) => CreateMessageResult | Promise<CreateMessageResult>;
export type RootsHandler = (context: InputContext) => Root[] | Promise<Root[]>;

export interface InputHandlers {
  elicitation?: { form?: FormElicitationHandler; url?: UrlElicitationHandler };
  /** A handler, or a handler with the sampling features it supports. */
  sampling?: SamplingHandler | { handler: SamplingHandler; tools?: boolean; context?: boolean };
  /** Fixed roots, or a handler that lists them. */
  roots?: Root[] | RootsHandler;
}

/** The capabilities implied by the registered handlers, plus any extra the caller declares. */
export function capabilitiesFor(handlers: InputHandlers, extra: ClientCapabilities = {}): ClientCapabilities {
  const capabilities: ClientCapabilities = { ...extra };
  const elicitation = handlers.elicitation;
  if (elicitation?.form || elicitation?.url) {
    capabilities.elicitation = {
      ...(elicitation.form ? { form: {} } : {}),
      ...(elicitation.url ? { url: {} } : {}),
    };
  }
  if (handlers.sampling) {
    const sampling = typeof handlers.sampling === 'function' ? {} : handlers.sampling;
    capabilities.sampling = {
      ...('tools' in sampling && sampling.tools ? { tools: {} } : {}),
      ...('context' in sampling && sampling.context ? { context: {} } : {}),
    };
  }
  if (handlers.roots) capabilities.roots = {};
  return capabilities;
}

export function samplingHandlerOf(handlers: InputHandlers): SamplingHandler | undefined {
  const sampling = handlers.sampling;
  return typeof sampling === 'function' ? sampling : sampling?.handler;
}
