/** The methods of the 2026-07-28 core, each answered from what is registered. */

import { isInputRequiredResult } from '../protocol/guards.js';
import { Method } from '../protocol/methods.js';
import type { CoreMethod, DiscoverResult, ResultByMethod } from '../protocol/method-types.js';
import type { CacheHints, ClientCapabilities, ServerCapabilities } from '../protocol/types.js';
import { MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { complete } from './completion.js';
import type { MethodHandler } from './extension.js';
import type { CheckedParams } from './method-params.js';
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

/** One handler per core method, each typed by its checked params and what it answers (protocol/method-types.ts). */
export type CoreMethodHandlers = { [M in CoreMethod]: MethodHandler<ResultByMethod[M], CheckedParams<M>> };

export function coreMethods(parts: CoreParts): CoreMethodHandlers {
  const { tools, resources, prompts, hub, cache, pageSize } = parts;
  return {
    [Method.Discover]: async () => {
      const result: DiscoverResult = withCache({ supportedVersions: [...MODERN_PROTOCOL_VERSIONS], capabilities: parts.capabilities() }, cache.discover);
      if (parts.instructions !== undefined) result.instructions = parts.instructions;
      return result;
    },
    [Method.ToolsList]: async ({ params }, ctx) => withCache(tools.list(params.cursor, pageSize, parts.hiddenTools(ctx.clientCapabilities)), cache.tools),
    [Method.ToolsCall]: ({ params, tool }, ctx) => tools.call(params, tool, ctx, parts.takeHandOff, parts.hiddenTools(ctx.clientCapabilities)),
    [Method.PromptsList]: async ({ params }) => withCache(prompts.list(params.cursor, pageSize), cache.prompts),
    [Method.PromptsGet]: ({ params, prompt }, ctx) => prompts.get(params, prompt, ctx),
    [Method.ResourcesList]: async ({ params }) => withCache(resources.list(params.cursor, pageSize), cache.resources),
    [Method.ResourceTemplatesList]: async ({ params }) => withCache(resources.listTemplates(params.cursor, pageSize), cache.templates),
    [Method.ResourcesRead]: async ({ params, resource }, ctx) => {
      const read = await resources.read(params.uri, resource, ctx);
      // A hand-made input-required result is not the resource: no caching hints on it.
      return isInputRequiredResult(read.result) ? read.result : withCache(read.result, { ...cache.read, ...read.cache });
    },
    [Method.Complete]: ({ params }, ctx) =>
      complete(params, ctx, (ref, argument) =>
        ref.type === 'ref/prompt' ? prompts.completer(String(ref.name), argument) : resources.templateCompleter(String(ref.uri), argument),
      ),
    [Method.SubscriptionsListen]: async ({ request, params }, _ctx, channel) => hub.listen(request.id, params, channel, parts.capabilities()),
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
