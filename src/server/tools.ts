/** Tools: registration, `tools/list` and `tools/call`. */

import type { StandardSchemaV1 } from '@standard-schema/spec';
import { checkScopeNames } from '../protocol/authorization.js';
import { McpError } from '../protocol/errors.js';
import type { CheckedParams } from './method-params.js';
import { collectHeaderParams, type HeaderParam } from '../protocol/header-values.js';
import { isObject } from '../protocol/guards.js';
import type { AskKind } from '../protocol/capabilities.js';
import type { ResultByMethod } from '../protocol/method-types.js';
import type { CallToolResult, Icon, InputRequiredResult, JsonValue, Tool, ToolAnnotations } from '../protocol/types.js';
import { resolveSchema, type JsonSchemaObject, type ResolvedSchema, type SchemaInput, type Validation } from '../schema/resolve.js';
import type { RequestContext } from './context.js';
import { Catalog } from './catalog.js';

/** The arguments a handler receives: the schema's output type, or a plain object for raw JSON Schema. */
export type ArgsOf<S> = S extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<S> : Record<string, unknown>;

/** A tool result whose `content` may be left out when `structuredContent` is given (it is then mirrored as JSON text). */
export type ToolResult = Omit<CallToolResult, 'content'> & { content?: CallToolResult['content'] };

/**
 * A value a tool returns for an extension to turn into the tool's result
 * (`ctx.task` work, which the Tasks extension runs): `handOffTo` names it.
 */
export interface ToolHandOff {
  readonly handOffTo: string;
}

/** What a tool handler may return: text, a result, an input-required result (MRTR by hand), or a hand-off (`ctx.task`). */
export type ToolReturn = string | ToolResult | InputRequiredResult | ToolHandOff;

/** Turns a value the hand-off's extension produced (text or a result) into the tool's result, as if the handler had returned it. */
export type ShapeToolResult = (value: unknown) => Promise<CallToolResult | InputRequiredResult>;

/** The tool call a hand-off came from. */
export interface ToolCall {
  readonly name: string;
  /** The tool's definition as registered (an extension reads its own fields of it). */
  readonly definition: ToolDefinition<SchemaInput | undefined>;
  /** The arguments as the client sent them. */
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly ctx: RequestContext;
  /** Shapes what the extension produced into the tool's result, as if the handler had returned it. */
  readonly shape: ShapeToolResult;
}

/** Takes a hand-off to the extension it names; its result is the tool's result. */
export type TakeHandOff = (handOff: ToolHandOff, call: ToolCall) => Promise<ResultByMethod['tools/call']>;

/** Which tools are not there for the client of one request (an extension's `hidesTool`). */
export type HiddenTools = (definition: ToolDefinition<SchemaInput | undefined>) => boolean;

/** A tool's handler; `State` types what it keeps between rounds (`ctx.state`, see RequestContext). */
export type ToolHandler<S, State = JsonValue> = (args: ArgsOf<S>, ctx: RequestContext<State>) => ToolReturn | Promise<ToolReturn>;

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
   * The kinds of question the handler may ask. With them the server knows,
   * before anything streams, whether the request declared what they need: its
   * notifications are held until the handler finishes, so a -32021 can still
   * go out on HTTP 400 as the spec requires. Without it, a -32021 after the
   * handler's first notification rides the already-open 200 stream.
   */
  asks?: AskKind[];
  /**
   * OAuth scopes a caller's token must grant to call this tool, when the HTTP
   * transport checks tokens (`auth`): otherwise 403 `insufficient_scope`
   * naming them, before the handler runs. Not enforced over stdio.
   */
  scopes?: readonly string[];
}

/** A tool as the registry holds it, what a request's operation carries (operation.ts). */
export interface RegisteredTool {
  /** As registered (extensions read their own fields of it). */
  readonly definition: ToolDefinition<SchemaInput | undefined>;
  readonly descriptor: Tool;
  readonly input: ResolvedSchema | undefined;
  readonly output: ResolvedSchema | undefined;
  /** The `x-mcp-header` mirrors of its arguments, for HTTP header validation. */
  readonly headerParams: readonly HeaderParam[];
  readonly handler: (args: unknown, ctx: RequestContext) => ToolReturn | Promise<ToolReturn>;
}

const NO_ARGUMENTS: JsonSchemaObject = { type: 'object', additionalProperties: false };
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** A tool error the model can read and correct itself from (`isError: true`), not a protocol error. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

export class ToolRegistry {
  private readonly tools: Catalog<RegisteredTool, Tool>;

  constructor(onChange: () => void) {
    this.tools = new Catalog('tools', (t) => t.name, onChange);
  }

  get size(): number {
    return this.tools.size;
  }

  add<S extends SchemaInput | undefined>(name: string, definition: ToolDefinition<S>, handler: ToolHandler<S>): () => void {
    if (!TOOL_NAME.test(name)) {
      throw new TypeError(`Tool name "${name}" must be 1-128 characters of A-Z, a-z, 0-9, "_", "-" and "."`);
    }
    if (this.tools.byKey.has(name)) throw new TypeError(`Tool "${name}" is already registered`);
    const owner = `Tool "${name}"`;
    const input = definition.input === undefined ? undefined : resolveSchema(definition.input, 'input', owner);
    const inputSchema = input?.jsonSchema ?? NO_ARGUMENTS;
    if (inputSchema.type !== 'object') throw new TypeError(`${owner}: the input schema must have type "object" at its root`);
    const { params: headerParams, problems } = collectHeaderParams(inputSchema);
    if (problems.length > 0) throw new TypeError(`${owner}: ${problems.join('; ')}`);
    const output = definition.output === undefined ? undefined : resolveSchema(definition.output, 'output', owner);
    if (definition.scopes !== undefined) checkScopeNames(definition.scopes, owner);

    const descriptor: Tool = { name, inputSchema };
    if (definition.title !== undefined) descriptor.title = definition.title;
    if (definition.description !== undefined) descriptor.description = definition.description;
    if (definition.icons !== undefined) descriptor.icons = definition.icons;
    if (output) descriptor.outputSchema = output.jsonSchema;
    if (definition.annotations !== undefined) descriptor.annotations = definition.annotations;
    if (definition._meta !== undefined) descriptor._meta = definition._meta;

    return this.tools.add(name, { definition, descriptor, input, output, headerParams, handler: handler as RegisteredTool['handler'] });
  }

  /** Tools in registration order, which is deterministic for a given server program; without those `hidden` leaves out. */
  list(cursor: unknown, pageSize: number, hidden?: HiddenTools): { tools: Tool[]; nextCursor?: string } {
    const page = this.tools.page(cursor, pageSize, hidden && ((t) => !hidden(t.definition)));
    return page.nextCursor === undefined ? { tools: page.items } : { tools: page.items, nextCursor: page.nextCursor };
  }

  /** A tool as registered, or undefined: looked up once per request, by the gates (operation.ts). */
  resolve(name: unknown): RegisteredTool | undefined {
    return typeof name === 'string' ? this.tools.byKey.get(name) : undefined;
  }

  /** A tool's definition as registered, or undefined. */
  definition(name: unknown): ToolDefinition<SchemaInput | undefined> | undefined {
    return typeof name === 'string' ? this.tools.byKey.get(name)?.definition : undefined;
  }

  /** The scopes calling a tool needs (none for an unknown tool: that is -32602 later). */
  scopes(name: unknown): readonly string[] | undefined {
    return typeof name === 'string' ? this.tools.byKey.get(name)?.definition.scopes : undefined;
  }

  /** Every tool's definition, in registration order. */
  *definitions(): IterableIterator<ToolDefinition<SchemaInput | undefined>> {
    for (const tool of this.tools.byKey.values()) yield tool.definition;
  }

  /**
   * Calls a tool (one `hidden` leaves out is unknown): `tool` is the one the gates resolved from `params.name`.
   * A hand-off the handler returns goes to `takeHandOff`, with how to shape what it produces.
   */
  async call(params: CheckedParams<'tools/call'>, tool: RegisteredTool | undefined, ctx: RequestContext, takeHandOff: TakeHandOff, hidden?: HiddenTools): Promise<ResultByMethod['tools/call']> {
    const name = params.name;
    if (!tool || hidden?.(tool.definition)) throw McpError.invalidParams(`Unknown tool: ${name}`);
    const rawArgs = params.arguments ?? {};
    let args: unknown = rawArgs;
    // Awaited only when they are promises: most schemas and many handlers answer at once, and each await costs.
    if (tool.input) {
      const validating = tool.input.validate(rawArgs);
      const checked = validating instanceof Promise ? await validating : validating;
      // Bad arguments are a tool execution error, so the model can read it and try again.
      if (!checked.ok) return { ...toolError(`Invalid arguments for tool ${name}: ${checked.message}`) };
      args = checked.value;
    }
    const running = tool.handler(args, ctx);
    const returned: unknown = isThenable(running) ? await running : running;
    if (isHandOff(returned)) return takeHandOff(returned, { name, definition: tool.definition, arguments: rawArgs, ctx, shape: async (value) => this.shapeResult(name, tool, value, false) });
    return this.shapeResult(name, tool, returned, true);
  }

  private shapeResult(name: string, tool: RegisteredTool, returned: unknown, mayAskByHand: boolean): CallToolResult | InputRequiredResult | Promise<CallToolResult | InputRequiredResult> {
    if (typeof returned === 'string') return { content: [{ type: 'text', text: returned }] };
    if (!isObject(returned)) throw new TypeError(`Tool "${name}" returned ${typeof returned}; return a string or a CallToolResult`);
    if (isHandOff(returned)) throw new TypeError(`Tool "${name}": a hand-off (ctx.task work) returned another hand-off`);
    if (returned.resultType === 'input_required') {
      if (!mayAskByHand) throw new TypeError(`Tool "${name}": ctx.task work cannot return an input-required result; ask with task.ask`);
      // Its questions and state are checked when the round concludes (mrtr/input-rounds.ts).
      return returned as InputRequiredResult;
    }
    if (tool.output && returned.isError !== true) {
      if (returned.structuredContent === undefined) {
        throw new TypeError(`Tool "${name}" declares an output schema but returned no structuredContent`);
      }
      const validating = tool.output.validate(returned.structuredContent);
      if (validating instanceof Promise) return validating.then((checked) => this.shapeChecked(name, returned, checked));
      return this.shapeChecked(name, returned, validating);
    }
    return this.shapeChecked(name, returned, undefined);
  }

  /** A returned result whose structuredContent was checked against the output schema (`checked`), or had none to check. */
  private shapeChecked(name: string, returned: Record<string, unknown>, checked: Validation<unknown> | undefined): CallToolResult {
    if (checked && !checked.ok) throw new TypeError(`Tool "${name}" returned structuredContent that breaks its output schema: ${checked.message}`);
    if (returned.structuredContent !== undefined && returned.content === undefined) {
      // Older clients read content only: mirror the structured value as JSON text.
      return { ...returned, content: [{ type: 'text', text: JSON.stringify(returned.structuredContent) }] } satisfies CallToolResult;
    }
    if (!Array.isArray(returned.content)) throw new TypeError(`Tool "${name}" returned a result without a content array`);
    // A result with a content array, as the handler's ToolResult type promised.
    return returned as CallToolResult;
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

function isHandOff(value: unknown): value is ToolHandOff {
  return isObject(value) && typeof value.handOffTo === 'string';
}
