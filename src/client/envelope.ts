/**
 * What goes around every request the client sends: a fresh id, the
 * per-request `_meta` (protocol version, client info and capabilities, log
 * level, progress token), and on Streamable HTTP the request-metadata headers,
 * including the `Mcp-Param-*` mirrors of tools whose schemas it has seen.
 */

import { collectHeaderParams, encodeHeaderValue, mirroredText, readMirroredArgument, type HeaderParam } from '../protocol/header-values.js';
import { isObject } from '../protocol/guards.js';
import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROGRESS_TOKEN, META_PROTOCOL_VERSION } from '../protocol/meta.js';
import { Method, mcpNameSource } from '../protocol/methods.js';
import type { ClientCapabilities, Implementation, LoggingLevel, Tool } from '../protocol/types.js';

/** Which protocol era a server speaks: 2026-07-28 (`modern`) or 2025-11-25 and earlier (`legacy`). */
export type Era = 'modern' | 'legacy';

export class RequestEnvelope {
  /** Starts anywhere, so a flow resumed by another client (or process) never reuses the id of its first request. */
  private nextId = 1 + Math.floor(Math.random() * 2 ** 30);
  private nextToken = 1;
  /** Mirrored-header definitions of the tools in the most recent tools/list, by name. */
  private readonly toolHeaders = new Map<string, HeaderParam[]>();
  /** The `_meta` every 2026 request carries, made once per protocol version and capability set (it is only ever serialised). */
  private readonly baseMeta = new Map<ClientCapabilities, { version: string; meta: Record<string, unknown> }>();

  constructor(readonly clientInfo: Implementation) {}

  id(): number {
    return this.nextId++;
  }

  progressToken(): string {
    return `p${this.nextToken++}`;
  }

  /**
   * The request's `_meta`, declaring `capabilities` (the client's, or the
   * client's plus the Tasks extension for the requests that need it);
   * 2025-era requests carry only what the caller gave and the progress token.
   */
  meta(
    era: Era,
    version: string,
    capabilities: ClientCapabilities,
    logLevel: LoggingLevel | undefined,
    progressToken: string | undefined,
    extra: unknown,
  ): Record<string, unknown> | undefined {
    const own = isObject(extra) ? extra : undefined;
    if (era === 'legacy') return progressToken === undefined ? own : { ...own, [META_PROGRESS_TOKEN]: progressToken };
    let cached = this.baseMeta.get(capabilities);
    if (cached?.version !== version) {
      cached = { version, meta: { [META_PROTOCOL_VERSION]: version, [META_CLIENT_INFO]: this.clientInfo, [META_CLIENT_CAPABILITIES]: capabilities } };
      this.baseMeta.set(capabilities, cached);
    }
    const base = cached.meta;
    if (logLevel === undefined && progressToken === undefined && !own) return base;
    const meta: Record<string, unknown> = { ...own, ...base };
    if (logLevel !== undefined) meta[META_LOG_LEVEL] = logLevel;
    if (progressToken !== undefined) meta[META_PROGRESS_TOKEN] = progressToken;
    return meta;
  }

  /** The Streamable HTTP request-metadata headers for a request (SEP-2243). */
  headers(version: string, method: string, params: Record<string, unknown>): Record<string, string> {
    const headers: Record<string, string> = { 'mcp-protocol-version': version, 'mcp-method': method };
    const source = mcpNameSource(method);
    const name = source === undefined ? undefined : params[source];
    if (typeof name === 'string') headers['mcp-name'] = encodeHeaderValue(name);
    if (method === Method.ToolsCall && typeof name === 'string') {
      for (const param of this.toolHeaders.get(name) ?? []) {
        const text = mirroredText(readMirroredArgument(params.arguments, param.path));
        if (text !== undefined) headers[`mcp-param-${param.name.toLowerCase()}`] = encodeHeaderValue(text);
      }
    }
    return headers;
  }

  /** Whether the mirrored headers of this tool are known (from a tools/list). */
  knowsTool(name: string): boolean {
    return this.toolHeaders.has(name);
  }

  /**
   * Learns the mirrored headers of listed tools; returns the problems of a
   * tool whose `x-mcp-header` annotations are invalid (it must be left out).
   */
  learnTool(tool: Tool): string[] {
    const { params, problems } = collectHeaderParams(isObject(tool.inputSchema) ? tool.inputSchema : {});
    if (problems.length > 0) this.toolHeaders.delete(tool.name);
    else this.toolHeaders.set(tool.name, params);
    return problems;
  }
}
