/**
 * What a request is, as span and metric attributes, the same on both sides:
 * the method, and the tool, prompt or resource it is about. Span names follow
 * the conventions: `{method} {tool or prompt}`, never the resource URI (too
 * many distinct values for a name).
 */

import type { Attributes } from '@opentelemetry/api';
import { isObject } from '../protocol/guards.js';
import { Method } from '../protocol/methods.js';
import {
  ATTR_GEN_AI_OPERATION,
  ATTR_GEN_AI_PROMPT_NAME,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD,
  ATTR_MCP_RESOURCE_URI,
  OPERATION_EXECUTE_TOOL,
} from './semantic-conventions.js';

/** The tool, prompt or resource URI a request names, when it names one. */
export function targetOf(method: string, params: unknown): string | undefined {
  if (!isObject(params)) return undefined;
  // tools/call and prompts/get name theirs; resources/read, subscribe and unsubscribe carry a URI.
  const value = method === Method.ToolsCall || method === Method.PromptsGet ? params.name : method.startsWith('resources/') ? params.uri : undefined;
  return typeof value === 'string' ? value : undefined;
}

export function spanName(method: string, params: unknown): string {
  if (method !== Method.ToolsCall && method !== Method.PromptsGet) return method;
  const target = targetOf(method, params);
  return target === undefined ? method : `${method} ${target}`;
}

/** The attributes that say what a request is (for spans and metrics alike; low cardinality but for the resource URI). */
export function requestAttributes(method: string, params: unknown, withUri: boolean): Attributes {
  const attributes: Attributes = { [ATTR_MCP_METHOD]: method };
  const target = targetOf(method, params);
  if (target === undefined) return attributes;
  if (method === Method.ToolsCall) {
    attributes[ATTR_GEN_AI_TOOL_NAME] = target;
    attributes[ATTR_GEN_AI_OPERATION] = OPERATION_EXECUTE_TOOL;
  } else if (method === Method.PromptsGet) {
    attributes[ATTR_GEN_AI_PROMPT_NAME] = target;
  } else if (withUri) {
    attributes[ATTR_MCP_RESOURCE_URI] = target;
  }
  return attributes;
}
