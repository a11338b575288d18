/** The methods of the 2026-07-28 core, each answered from what is registered. */

import { isInputRequiredResult } from '../protocol/guards.js';
import { Method } from '../protocol/methods.js';
import type { CoreMethod, DiscoverResult, ResultByMethod } from '../protocol/method-types.js';
import type { CacheHints, ClientCapabilities, ServerCapabilities } from '../protocol/types.js';
import { MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { complete } from './completion.js';
import type { MethodHandler } from './extension.js';
import type { CacheableList } from './options.js';
import type { PromptRegistry } from './prompts.js';
import type { ResourceRegistry } from './resources.js';
import type { SubscriptionHub } from './subscriptions.js';
import type { HiddenTools, TakeHandOff, ToolRegistry } from './tools.js';

export interface CoreParts {
  tools: ToolRegistry;
  resources: ResourceRegistry;
  prompts: PromptRegistry;
  hub: SubscriptionHub;
  cache: Readonly<Record<CacheableList, CacheHints>>;
  pageSize: number;
  instructions: string | undefined;
  capabilities(): ServerCapabilities;
  /** Where a tool's hand-off goes (the extension it names). */
  takeHandOff: TakeHandOff;
  /** The tools extensions hide from a client with these capabilities; undefined when none hides any. */
  hiddenTools(client: ClientCapabilities): HiddenTools | undefined;
}

function withCache<R extends object>(result: R, hints: CacheHints): R & CacheHints {
  return { ...result, ttlMs: hints.ttlMs, cacheScope: hints.cacheScope };
}

/** One handler per core method, each typed by what the method answers (protocol/method-types.ts). */
export type CoreMethodHandlers = { [M in CoreMethod]: MethodHandler<ResultByMethod[M]> };

export function coreMethods(parts: CoreParts): CoreMethodHandlers {
  const { tools, resources, prompts, hub, cache, pageSize } = parts;
  const params = (request: { params?: Record<string, unknown> }): Record<string, unknown> => request.params ?? {};
  return {
    [Method.Discover]: async () => {
      const result: DiscoverResult = withCache({ supportedVersions: [...MODERN_PROTOCOL_VERSIONS], capabilities: parts.capabilities() }, cache.discover);
      if (parts.instructions !== undefined) result.instructions = parts.instructions;
      return result;
    },
    [Method.ToolsList]: async (r, ctx) => withCache(tools.list(params(r).cursor, pageSize, parts.hiddenTools(ctx.clientCapabilities)), cache.tools),
    [Method.ToolsCall]: (r, ctx, _channel, operation) => tools.call(params(r), operation.tool, ctx, parts.takeHandOff, parts.hiddenTools(ctx.clientCapabilities)),
    [Method.PromptsList]: async (r) => withCache(prompts.list(params(r).cursor, pageSize), cache.prompts),
    [Method.PromptsGet]: (r, ctx) => prompts.get(params(r), ctx),
    [Method.ResourcesList]: async (r) => withCache(resources.list(params(r).cursor, pageSize), cache.resources),
    [Method.ResourceTemplatesList]: async (r) => withCache(resources.listTemplates(params(r).cursor, pageSize), cache.templates),
    [Method.ResourcesRead]: async (r, ctx) => {
      const read = await resources.read(params(r), ctx);
      // A hand-made input-required result is not the resource: no caching hints on it.
      return isInputRequiredResult(read.result) ? read.result : withCache(read.result, { ...cache.read, ...read.cache });
    },
    [Method.Complete]: (r, ctx) =>
      complete(params(r), ctx, (ref, argument) =>
        ref.type === 'ref/prompt' ? prompts.completer(String(ref.name), argument) : resources.templateCompleter(String(ref.uri), argument),
      ),
    [Method.SubscriptionsListen]: async (r, _ctx, channel) => hub.listen(r.id, params(r), channel, parts.capabilities()),
  };
}

/** Whether the capabilities the server advertises cover a core method (a method of an absent feature is unknown: -32601). */
export function coreMethodOffered(method: string, capabilities: ServerCapabilities): boolean {
  switch (method) {
    case Method.ToolsList:
    case Method.ToolsCall:
      return capabilities.tools !== undefined;
    case Method.PromptsList:
    case Method.PromptsGet:
      return capabilities.prompts !== undefined;
    case Method.ResourcesList:
    case Method.ResourceTemplatesList:
    case Method.ResourcesRead:
      return capabilities.resources !== undefined;
    case Method.Complete:
      return capabilities.completions !== undefined;
    default:
      return true;
  }
}
