/**
 * The server Tessera exports: 2026-07-28 statelessly, the 2025-11-25
 * lifecycle on the same URL and over stdio (legacy/), and the Tasks
 * extension for tools that allow it (tasks/).
 */

import { McpError } from './protocol/errors.js';
import type { JsonRpcRequest } from './protocol/jsonrpc.js';
import { TASKS_EXTENSION } from './protocol/meta.js';
import { Method } from './protocol/methods.js';
import type { Implementation, ServerCapabilities } from './protocol/types.js';
import { MODERN_PROTOCOL_VERSIONS } from './protocol/versions.js';
import { DualEraServer, type DualEraOptions } from './legacy/dual-era-server.js';
import type { RequestExchange } from './server/context.js';
import type { MethodHandler } from './server/server.js';
import type { TaskWork } from './server/task-work.js';
import type { TaskStoreOptions } from './tasks/task-store.js';
import { declaresTasks, TASK_METHODS, TaskManager, tasksNotDeclared } from './tasks/tasks.js';

export interface McpServerOptions extends DualEraOptions {
  /** The Tasks extension: how long task records live and how often clients should poll. */
  tasks?: TaskStoreOptions;
}

export class McpServer extends DualEraServer {
  private readonly tasks: TaskManager;

  constructor(info: Implementation, options: McpServerOptions = {}) {
    super(info, options);
    this.tasks = new TaskManager(options.tasks ?? {}, (message, detail) => this.logger.error(message, detail));
  }

  protected override deriveCapabilities(): ServerCapabilities {
    const capabilities = super.deriveCapabilities();
    if (this.offersTasks) capabilities.extensions = { ...capabilities.extensions, [TASKS_EXTENSION]: {} };
    return capabilities;
  }

  /** A task only for a 2026-07-28 request that declared the extension (never for a 2025-era session). */
  protected override taskStarter(_request: JsonRpcRequest, ctx: RequestExchange): ((work: TaskWork) => Promise<Record<string, unknown>>) | undefined {
    if (!MODERN_PROTOCOL_VERSIONS.includes(ctx.protocolVersion) || !declaresTasks(ctx.clientCapabilities)) return undefined;
    return (work) => Promise.resolve(this.tasks.start(work, ctx.principal ?? '', ctx.clientCapabilities));
  }

  protected override lookup(method: string): MethodHandler | undefined {
    const base = super.lookup(method);
    if (!this.offersTasks) return base;
    if (method === Method.SubscriptionsListen && base) {
      // Task notifications are not delivered here (a MAY); asking for them without the extension is still -32021.
      return async (request, ctx, channel) => {
        const filter = request.params?.notifications as { taskIds?: unknown } | undefined;
        if (filter?.taskIds !== undefined && !declaresTasks(ctx.clientCapabilities)) throw tasksNotDeclared('Subscribing to taskIds');
        return base(request, ctx, channel);
      };
    }
    if (!(TASK_METHODS as readonly string[]).includes(method)) return base;
    return async (request, ctx) => {
      // Tasks do not exist under 2025-11-25, whatever a session declared.
      if (!MODERN_PROTOCOL_VERSIONS.includes(ctx.protocolVersion)) throw McpError.methodNotFound(method);
      if (!declaresTasks(ctx.clientCapabilities)) throw tasksNotDeclared(method);
      const params = request.params ?? {};
      const principal = ctx.principal ?? '';
      if (method === 'tasks/get') return this.tasks.get(params, principal);
      if (method === 'tasks/update') return this.tasks.update(params, principal);
      return this.tasks.cancel(params, principal);
    };
  }

  override close(): void {
    super.close();
    this.tasks.store.clear();
  }
}
