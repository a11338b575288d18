/** Resources and resource templates: registration, `resources/list`, `resources/templates/list`, `resources/read`. */

import { Router } from 'uri-template-router';
import { checkScopeNames } from '../protocol/authorization.js';
import { bytesToBase64 } from '../protocol/base64.js';
import type { AskKind } from '../protocol/capabilities.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import type {
  Annotations,
  CacheHints,
  Icon,
  InputRequiredResult,
  JsonValue,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
} from '../protocol/types.js';
import type { RequestContext } from './context.js';
import type { Completer } from './completion.js';
import { Catalog } from './catalog.js';

/** What a read handler may return; strings become text and bytes become a base64 blob. */
export type ResourceReturn = string | Uint8Array | ResourceContents | ResourceContents[] | ReadResourceResult | InputRequiredResult;

export interface ResourceDefinition {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  size?: number;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  /** Caching hints for reads of this resource (default: the server's `cache.read`). */
  cache?: Partial<CacheHints>;
  /** The kinds of question the handler may ask (see ToolDefinition.asks). */
  asks?: AskKind[];
  /** OAuth scopes a caller's token must grant to read this resource, when the HTTP transport checks tokens. */
  scopes?: readonly string[];
}

export interface ResourceTemplateDefinition {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
  cache?: Partial<CacheHints>;
  /** Completions for template variables, by variable name. */
  complete?: Record<string, Completer>;
  /** The kinds of question the handler may ask (see ToolDefinition.asks). */
  asks?: AskKind[];
  /** OAuth scopes a caller's token must grant to read what the template matches (or complete its variables). */
  scopes?: readonly string[];
}

/** A resource's handler; `State` types what it keeps between rounds (`ctx.state`, see RequestContext). */
export type ResourceHandler<State = JsonValue> = (uri: string, ctx: RequestContext<State>) => ResourceReturn | Promise<ResourceReturn>;
/** A template's handler, with the variables its URI matched; `State` as for ResourceHandler. */
export type TemplateHandler<State = JsonValue> = (
  uri: string,
  variables: Record<string, string>,
  ctx: RequestContext<State>,
) => ResourceReturn | Promise<ResourceReturn>;

/** What serves a URI: its resource, or the template it matches with the variables matched (looked up once per read: operation.ts). */
export type ResourceTarget =
  | { readonly entry: StaticEntry; readonly variables?: undefined }
  | { readonly entry: TemplateEntry; readonly variables: Record<string, string> };

interface StaticEntry {
  descriptor: Resource;
  scopes: readonly string[] | undefined;
  cache: Partial<CacheHints> | undefined;
  asks: AskKind[] | undefined;
  handler: ResourceHandler;
}

interface TemplateEntry {
  descriptor: ResourceTemplate;
  scopes: readonly string[] | undefined;
  cache: Partial<CacheHints> | undefined;
  asks: AskKind[] | undefined;
  complete: Record<string, Completer> | undefined;
  handler: TemplateHandler;
}

/** A read of a URI no resource or template serves: -32602 with `data.uri` (2025-era sessions get their -32002). */
export class ResourceNotFoundError extends McpError {
  constructor(readonly uri: string) {
    super(ErrorCode.InvalidParams, `Resource not found: ${uri}`, { uri });
    this.name = 'ResourceNotFoundError';
  }
}

export interface ReadOutcome {
  result: ReadResourceResult | InputRequiredResult;
  cache: Partial<CacheHints> | undefined;
}

function pick<T extends object>(source: T, keys: readonly (keyof T)[]): Partial<T> {
  const out: Partial<T> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}

const RESOURCE_FIELDS = ['uri', 'name', 'title', 'description', 'mimeType', 'annotations', 'size', 'icons', '_meta'] as const;
const TEMPLATE_FIELDS = ['uriTemplate', 'name', 'title', 'description', 'mimeType', 'annotations', 'icons', '_meta'] as const;

function flattenVariables(params: Record<string, string | string[]> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(params ?? {})) out[key] = Array.isArray(value) ? value.join(',') : value;
  return out;
}

function isInputRequired(returned: ResourceReturn): returned is InputRequiredResult {
  return typeof returned === 'object' && !(returned instanceof Uint8Array) && !Array.isArray(returned) && 'resultType' in returned && returned.resultType === 'input_required';
}

/** Turns whatever a handler returned into `ReadResourceResult` contents. */
function toContents(uri: string, mimeType: string | undefined, returned: ResourceReturn): ResourceContents[] {
  const withMime = <T extends ResourceContents>(c: T): T => (mimeType !== undefined && c.mimeType === undefined ? { ...c, mimeType } : c);
  if (typeof returned === 'string') return [withMime({ uri, text: returned })];
  if (returned instanceof Uint8Array) return [withMime({ uri, blob: bytesToBase64(returned) })];
  if (Array.isArray(returned)) return returned;
  if ('contents' in returned && Array.isArray(returned.contents)) return returned.contents;
  if ('uri' in returned) return [returned as ResourceContents];
  throw new TypeError(`The read handler for ${uri} returned something that is not resource contents`);
}

export class ResourceRegistry {
  private readonly resources: Catalog<StaticEntry, Resource>;
  private readonly templates: Catalog<TemplateEntry, ResourceTemplate>;
  private router: Router<TemplateEntry> | undefined;

  constructor(onChange: () => void) {
    this.resources = new Catalog('resources', (r) => r.uri, onChange);
    this.templates = new Catalog('templates', (t) => t.uriTemplate, () => {
      this.router = undefined;
      onChange();
    });
  }

  get size(): number {
    return this.resources.size + this.templates.size;
  }

  add(definition: ResourceDefinition, handler: ResourceHandler): () => void {
    const uri = definition.uri;
    if (typeof uri !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) {
      throw new TypeError(`Resource URI "${uri}" must be an absolute URI with a scheme`);
    }
    if (this.resources.byKey.has(uri)) throw new TypeError(`Resource "${uri}" is already registered`);
    if (definition.scopes !== undefined) checkScopeNames(definition.scopes, `Resource "${uri}"`);
    return this.resources.add(uri, { descriptor: pick(definition, RESOURCE_FIELDS) as Resource, scopes: definition.scopes, cache: definition.cache, asks: definition.asks, handler });
  }

  addTemplate(definition: ResourceTemplateDefinition, handler: TemplateHandler): () => void {
    const template = definition.uriTemplate;
    if (this.templates.byKey.has(template)) throw new TypeError(`Resource template "${template}" is already registered`);
    if (definition.scopes !== undefined) checkScopeNames(definition.scopes, `Resource template "${template}"`);
    const entry: TemplateEntry = {
      descriptor: pick(definition, TEMPLATE_FIELDS) as ResourceTemplate,
      scopes: definition.scopes,
      cache: definition.cache,
      asks: definition.asks,
      complete: definition.complete,
      handler,
    };
    try {
      new Router<TemplateEntry>().addTemplate(template, {}, entry);
    } catch (error) {
      throw new TypeError(`Resource template "${template}" is not a valid RFC 6570 template (${(error as Error).message})`);
    }
    return this.templates.add(template, entry);
  }

  list(cursor: unknown, pageSize: number): { resources: Resource[]; nextCursor?: string } {
    const page = this.resources.page(cursor, pageSize);
    return page.nextCursor === undefined ? { resources: page.items } : { resources: page.items, nextCursor: page.nextCursor };
  }

  listTemplates(cursor: unknown, pageSize: number): { resourceTemplates: ResourceTemplate[]; nextCursor?: string } {
    const page = this.templates.page(cursor, pageSize);
    return page.nextCursor === undefined
      ? { resourceTemplates: page.items }
      : { resourceTemplates: page.items, nextCursor: page.nextCursor };
  }

  private matchTemplate(uri: string): { entry: TemplateEntry; variables: Record<string, string> } | undefined {
    if (this.templates.size === 0) return undefined;
    if (!this.router) {
      this.router = new Router<TemplateEntry>();
      for (const [template, entry] of this.templates.byKey) this.router.addTemplate(template, {}, entry);
    }
    const match = this.router.resolveURI(uri);
    return match ? { entry: match.matchValue, variables: flattenVariables(match.params) } : undefined;
  }

  /** What serves `uri`: its resource, else the template it matches; undefined when nothing does. */
  resolve(uri: string): ResourceTarget | undefined {
    const entry = this.resources.byKey.get(uri);
    return entry ? { entry } : this.matchTemplate(uri);
  }

  /** The scopes reading `uri` needs: its resource's, else the matching template's. */
  scopesFor(uri: unknown): readonly string[] | undefined {
    if (typeof uri !== 'string') return undefined;
    const entry = this.resources.byKey.get(uri);
    return entry ? entry.scopes : this.matchTemplate(uri)?.entry.scopes;
  }

  /** The scopes of a template, by its text (for completions of its variables). */
  templateScopes(uriTemplate: unknown): readonly string[] | undefined {
    return typeof uriTemplate === 'string' ? this.templates.byKey.get(uriTemplate)?.scopes : undefined;
  }

  /** The completer for a template variable, by the template text the client referenced. */
  templateCompleter(uriTemplate: string, variable: string): Completer | undefined | null {
    const entry = this.templates.byKey.get(uriTemplate);
    if (!entry) return null;
    return entry.complete?.[variable];
  }

  /** Reads `uri`: `target` is what the gates resolved it to. */
  async read(uri: string, target: ResourceTarget | undefined, ctx: RequestContext): Promise<ReadOutcome> {
    if (!target) throw new ResourceNotFoundError(uri);
    const returned = target.variables === undefined ? await target.entry.handler(uri, ctx) : await target.entry.handler(uri, target.variables, ctx);
    const mimeType = target.entry.descriptor.mimeType;
    const cache = target.entry.cache;
    if (isInputRequired(returned)) return { result: returned, cache };
    const contents = toContents(uri, mimeType, returned);
    if (contents.length === 0) {
      // The spec forbids empty contents for a resource; a handler with nothing to give has not found it.
      throw new ResourceNotFoundError(uri);
    }
    return { result: { contents }, cache };
  }
}
