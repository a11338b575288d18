/** Prompts: registration, `prompts/list` and `prompts/get`. */

import type { StandardSchemaV1 } from '@standard-schema/spec';
import type { AskKind } from '../protocol/capabilities.js';
import { checkScopeNames } from '../protocol/authorization.js';
import { McpError } from '../protocol/errors.js';
import type { GetPromptResult, Icon, InputRequiredResult, JsonValue, Prompt, PromptArgument, PromptMessage } from '../protocol/types.js';
import type { CheckedParams } from './method-params.js';
import type { Completer } from './completion.js';
import type { RequestContext } from './context.js';
import { Catalog } from './catalog.js';
import { isStandardSchema, resolveSchema, type ResolvedSchema } from '../schema/resolve.js';

/** Arguments: a list of string arguments, or a Standard Schema of an object whose values are strings. */
export type PromptArguments = PromptArgument[] | StandardSchemaV1;

export type PromptArgsOf<A> = A extends StandardSchemaV1 ? StandardSchemaV1.InferOutput<A> : Record<string, string>;

/** A text becomes one user message. */
export type PromptReturn = string | PromptMessage[] | GetPromptResult | InputRequiredResult;

export interface PromptDefinition<A extends PromptArguments | undefined = undefined> {
  title?: string;
  description?: string;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  arguments?: A;
  /** Completions for arguments, by argument name. */
  complete?: Record<string, Completer>;
  /** The kinds of question the handler may ask (see ToolDefinition.asks). */
  asks?: AskKind[];
  /** OAuth scopes a caller's token must grant to get this prompt (or complete its arguments), when the HTTP transport checks tokens. */
  scopes?: readonly string[];
}

/** A prompt's handler; `State` types what it keeps between rounds (`ctx.state`, see RequestContext). */
export type PromptHandler<A, State = JsonValue> = (args: PromptArgsOf<A>, ctx: RequestContext<State>) => PromptReturn | Promise<PromptReturn>;

/** A prompt as registered. */
export interface RegisteredPrompt {
  descriptor: Prompt;
  asks: AskKind[] | undefined;
  scopes: readonly string[] | undefined;
  schema: ResolvedSchema | undefined;
  complete: Record<string, Completer> | undefined;
  handler: (args: unknown, ctx: RequestContext) => PromptReturn | Promise<PromptReturn>;
}

/** Derives the wire argument list from an object schema's properties. */
function argumentsFromSchema(jsonSchema: Record<string, unknown>): PromptArgument[] {
  const properties = (jsonSchema.properties ?? {}) as Record<string, { description?: string; title?: string }>;
  const required = new Set(Array.isArray(jsonSchema.required) ? (jsonSchema.required as string[]) : []);
  return Object.entries(properties).map(([name, property]) => {
    const argument: PromptArgument = { name };
    if (property.title !== undefined) argument.title = property.title;
    if (property.description !== undefined) argument.description = property.description;
    if (required.has(name)) argument.required = true;
    return argument;
  });
}

export class PromptRegistry {
  private readonly prompts: Catalog<RegisteredPrompt, Prompt>;

  constructor(onChange: () => void) {
    this.prompts = new Catalog('prompts', (p) => p.name, onChange);
  }

  get size(): number {
    return this.prompts.size;
  }

  add<A extends PromptArguments | undefined>(name: string, definition: PromptDefinition<A>, handler: PromptHandler<A>): () => void {
    if (this.prompts.byKey.has(name)) throw new TypeError(`Prompt "${name}" is already registered`);
    const descriptor: Prompt = { name };
    if (definition.title !== undefined) descriptor.title = definition.title;
    if (definition.description !== undefined) descriptor.description = definition.description;
    let schema: ResolvedSchema | undefined;
    if (isStandardSchema(definition.arguments)) {
      schema = resolveSchema(definition.arguments, 'input', `Prompt "${name}"`);
      descriptor.arguments = argumentsFromSchema(schema.jsonSchema);
    } else if (Array.isArray(definition.arguments)) {
      descriptor.arguments = definition.arguments;
    }
    if (definition.icons !== undefined) descriptor.icons = definition.icons;
    if (definition._meta !== undefined) descriptor._meta = definition._meta;
    if (definition.scopes !== undefined) checkScopeNames(definition.scopes, `Prompt "${name}"`);
    return this.prompts.add(name, {
      descriptor,
      scopes: definition.scopes,
      schema,
      complete: definition.complete,
      asks: definition.asks,
      handler: handler as RegisteredPrompt['handler'],
    });
  }

  list(cursor: unknown, pageSize: number): { prompts: Prompt[]; nextCursor?: string } {
    const page = this.prompts.page(cursor, pageSize);
    return page.nextCursor === undefined ? { prompts: page.items } : { prompts: page.items, nextCursor: page.nextCursor };
  }

  /** The scopes getting a prompt needs. */
  scopes(name: unknown): readonly string[] | undefined {
    return typeof name === 'string' ? this.prompts.byKey.get(name)?.scopes : undefined;
  }

  completer(name: string, argument: string): Completer | undefined | null {
    const prompt = this.prompts.byKey.get(name);
    if (!prompt) return null;
    return prompt.complete?.[argument];
  }

  /** The prompt registered under `name`, or undefined (the gates look it up once per request: operation.ts). */
  resolve(name: string): RegisteredPrompt | undefined {
    return this.prompts.byKey.get(name);
  }

  /** Gets a prompt: `prompt` is the one the gates resolved from `params.name`. */
  async get(params: CheckedParams<'prompts/get'>, prompt: RegisteredPrompt | undefined, ctx: RequestContext): Promise<GetPromptResult | InputRequiredResult> {
    const name = params.name;
    if (!prompt) throw McpError.invalidParams(`Unknown prompt: ${name}`);
    const raw: Record<string, unknown> = params.arguments ?? {};
    let args: unknown = raw;
    if (prompt.schema) {
      const checked = await prompt.schema.validate(raw);
      if (!checked.ok) throw McpError.invalidParams(`Invalid arguments for prompt ${name}: ${checked.message}`);
      args = checked.value;
    } else {
      for (const [key, value] of Object.entries(raw)) {
        if (typeof value !== 'string') throw McpError.invalidParams(`Invalid arguments for prompt ${name}: ${key} must be a string`);
      }
      const missing = (prompt.descriptor.arguments ?? []).filter((a) => a.required && !(a.name in raw)).map((a) => a.name);
      if (missing.length > 0) {
        throw McpError.invalidParams(`Invalid arguments for prompt ${name}: missing ${missing.join(', ')}`);
      }
    }
    const returned = await prompt.handler(args, ctx);
    if (typeof returned === 'string') return { messages: [{ role: 'user', content: { type: 'text', text: returned } }] };
    if (Array.isArray(returned)) return { messages: returned };
    if (returned.resultType === 'input_required' || Array.isArray(returned.messages)) return returned;
    throw new TypeError(`Prompt "${name}" returned a result without a messages array`);
  }
}
