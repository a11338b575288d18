/** Tools: registration, `tools/list` and `tools/call`. */

import type { StandardSchemaV1 } from '@standard-schema/spec';
import { McpError } from '../protocol/errors.js';
import { collectHeaderParams, type HeaderParam } from '../protocol/header-values.js';
import type { CallToolResult, Icon, InputRequiredResult, Tool, ToolAnnotations } from '../protocol/types.js';
import type { RequestContext } from './context.js';
import { paginate } from './pagination.js';
import { resolveSchema, type JsonSchemaObject, type ResolvedSchema, type SchemaInput } from '../schema/resolve.js';
import { inlineTask, isTaskWork, taskWork, type TaskWork } from './task-work.js';

/** The arguments a handler receives: the schema's output type, or a plain object for raw JSON Schema. */
export type ArgsOf<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : Record<string, unknown>;

/** A tool result whose `content` may be left out when `structuredContent` is given (it is then mirrored as JSON text). */
export type ToolResult = Omit<CallToolResult, 'content'> & { content?: CallToolResult['content'] };

/** What a tool's task work (`ctx.task`) may return: text or a result. */
export type TaskReturn = string | ToolResult;

/** What a tool handler may return: text, a result, an input-required result (MRTR by hand), or task work (`ctx.task`). */
export type ToolReturn = string | ToolResult | InputRequiredResult | TaskWork;

export type ToolHandler<S> = (args: ArgsOf<S>, ctx: RequestContext) => ToolReturn | Promise<ToolReturn>;

export interface ToolDefinition<S extends SchemaInput | undefined = undefined> {
  title?: string;
  description?: string;
  icons?: Icon[];
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
  /** Arguments: a Standard Schema (e.g. zod v4) or a raw JSON Schema 2020-12 object (published verbatim). */
  input?: S;
  /** Shape of `structuredContent`: a Standard Schema or a raw JSON Schema. */
  output?: SchemaInput;
  /** Refuse a `requestState` presented twice for this tool (payments, one-time grants). */
  singleUseState?: boolean;
  /**
   * Tasks extension: `optional` — `ctx.task(fn)` becomes a task when the
   * request declared the extension, and runs inline otherwise; `required` — a
   * request that did not declare it gets -32021. Without this, `ctx.task` always runs inline.
   */
  task?: 'optional' | 'required';
}

interface RegisteredTool {
  descriptor: Tool;
  input: ResolvedSchema | undefined;
  output: ResolvedSchema | undefined;
  headerParams: HeaderParam[];
  singleUseState: boolean;
  task: 'optional' | 'required' | undefined;
  handler: (args: unknown, ctx: RequestContext) => ToolReturn | Promise<ToolReturn>;
}

const NO_ARGUMENTS: JsonSchemaObject = { type: 'object', additionalProperties: false };
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** A tool error the model can read and correct itself from (`isError: true`), not a protocol error. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  private listCache: Tool[] | undefined;

  constructor(private readonly onChange: () => void) {}

  get size(): number {
    return this.tools.size;
  }

  add<S extends SchemaInput | undefined>(name: string, definition: ToolDefinition<S>, handler: ToolHandler<S>): () => void {
    if (!TOOL_NAME.test(name)) {
      throw new TypeError(`Tool name "${name}" must be 1-128 characters of A-Z, a-z, 0-9, "_", "-" and "."`);
    }
    if (this.tools.has(name)) throw new TypeError(`Tool "${name}" is already registered`);
    const owner = `Tool "${name}"`;
    const input = definition.input === undefined ? undefined : resolveSchema(definition.input, 'input', owner);
    const inputSchema = input?.jsonSchema ?? NO_ARGUMENTS;
    if (inputSchema.type !== 'object') throw new TypeError(`${owner}: the input schema must have type "object" at its root`);
    const { params: headerParams, problems } = collectHeaderParams(inputSchema);
    if (problems.length > 0) throw new TypeError(`${owner}: ${problems.join('; ')}`);
    const output = definition.output === undefined ? undefined : resolveSchema(definition.output, 'output', owner);

    const descriptor: Tool = { name, inputSchema };
    if (definition.title !== undefined) descriptor.title = definition.title;
    if (definition.description !== undefined) descriptor.description = definition.description;
    if (definition.icons !== undefined) descriptor.icons = definition.icons;
    if (output) descriptor.outputSchema = output.jsonSchema;
    if (definition.annotations !== undefined) descriptor.annotations = definition.annotations;
    if (definition._meta !== undefined) descriptor._meta = definition._meta;

    this.tools.set(name, {
      descriptor,
      input,
      output,
      headerParams,
      singleUseState: definition.singleUseState ?? false,
      task: definition.task,
      handler: handler as RegisteredTool['handler'],
    });
    this.changed();
    return () => {
      if (this.tools.delete(name)) this.changed();
    };
  }

  private changed(): void {
    this.listCache = undefined;
    this.onChange();
  }

  /** Tools in registration order, which is deterministic for a given server program. */
  list(cursor: unknown, pageSize: number): { tools: Tool[]; nextCursor?: string } {
    this.listCache ??= [...this.tools.values()].map((t) => t.descriptor);
    const page = paginate('tools', this.listCache, (t) => t.name, cursor, pageSize);
    return page.nextCursor === undefined ? { tools: page.items } : { tools: page.items, nextCursor: page.nextCursor };
  }

  /** The `x-mcp-header` mirrors of a tool, for HTTP header validation. */
  headerParams(name: string): readonly HeaderParam[] | undefined {
    return this.tools.get(name)?.headerParams;
  }

  /** How a tool takes part in the Tasks extension (undefined: its task work always runs inline). */
  taskMode(name: unknown): 'optional' | 'required' | undefined {
    return typeof name === 'string' ? this.tools.get(name)?.task : undefined;
  }

  /** Whether any tool takes part in the Tasks extension. */
  get hasTaskTools(): boolean {
    for (const tool of this.tools.values()) if (tool.task) return true;
    return false;
  }

  singleUse(name: unknown): boolean {
    return typeof name === 'string' && (this.tools.get(name)?.singleUseState ?? false);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /**
   * Calls a tool. Task work the handler hands over (`ctx.task`) goes to
   * `startTask` when given (the request gets a task), or runs now.
   */
  async call(
    params: Record<string, unknown>,
    ctx: RequestContext,
    startTask?: (work: TaskWork) => Promise<Record<string, unknown>>,
  ): Promise<Record<string, unknown>> {
    const name = params.name;
    if (typeof name !== 'string') throw McpError.invalidParams('Invalid params: name must be a string');
    const tool = this.tools.get(name);
    if (!tool) throw McpError.invalidParams(`Unknown tool: ${name}`);
    const rawArgs = params.arguments ?? {};
    if (typeof rawArgs !== 'object' || rawArgs === null || Array.isArray(rawArgs)) {
      throw McpError.invalidParams('Invalid params: arguments must be an object');
    }
    let args: unknown = rawArgs;
    if (tool.input) {
      const checked = await tool.input.validate(rawArgs);
      // Bad arguments are a tool execution error, so the model can read it and try again.
      if (!checked.ok) return toolError(`Invalid arguments for tool ${name}: ${checked.message}`) as unknown as Record<string, unknown>;
      args = checked.value;
    }
    const returned = await tool.handler(args, ctx);
    if (!isTaskWork(returned)) return this.shapeResult(name, tool, returned);
    const work = taskWork(
      async (task) => (await this.shapeResult(name, tool, (await returned.run(task)) as ToolReturn)) as unknown as CallToolResult,
      returned.options,
    );
    if (startTask) return startTask(work);
    // No task: the work runs inside this request, so its asks are this request's own.
    return (await work.run(inlineTask(ctx))) as unknown as Record<string, unknown>;
  }

  private async shapeResult(name: string, tool: RegisteredTool, returned: ToolReturn): Promise<Record<string, unknown>> {
    if (typeof returned === 'string') return { content: [{ type: 'text', text: returned }] };
    if (isTaskWork(returned)) throw new TypeError(`Tool "${name}": ctx.task work returned more task work`);
    if (typeof returned !== 'object' || returned === null) {
      throw new TypeError(`Tool "${name}" returned ${typeof returned}; return a string or a CallToolResult`);
    }
    if ((returned as InputRequiredResult).resultType === 'input_required') return returned as unknown as Record<string, unknown>;
    const result = returned as ToolResult;
    if (tool.output && !result.isError) {
      if (result.structuredContent === undefined) {
        throw new TypeError(`Tool "${name}" declares an output schema but returned no structuredContent`);
      }
      const checked = await tool.output.validate(result.structuredContent);
      if (!checked.ok) throw new TypeError(`Tool "${name}" returned structuredContent that breaks its output schema: ${checked.message}`);
    }
    if (result.structuredContent !== undefined && result.content === undefined) {
      // Older clients read content only: mirror the structured value as JSON text.
      return { ...result, content: [{ type: 'text', text: JSON.stringify(result.structuredContent) }] };
    }
    if (!Array.isArray(result.content)) throw new TypeError(`Tool "${name}" returned a result without a content array`);
    return result as unknown as Record<string, unknown>;
  }
}
