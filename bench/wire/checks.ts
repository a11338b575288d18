/**
 * Checks on what a server answered. A benchmark that counts errors as
 * throughput measures nothing, so every response goes through one of these
 * and a failure is counted (and a few examples kept) instead of the request.
 * Each returns an error message, or undefined when the response is right.
 */

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function clip(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** A 200 with a JSON-RPC result for request `id`; the result, or an error message. */
export function resultOf(status: number, body: string, id: number): Json | string {
  if (status !== 200) return `HTTP ${status}: ${clip(body)}`;
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return `not JSON: ${clip(body)}`;
  }
  if (!isObject(message) || message.jsonrpc !== '2.0') return `not a JSON-RPC message: ${clip(body)}`;
  if (message.id !== id) return `answered id ${String(message.id)}, expected ${id}`;
  if (message.error !== undefined) return `JSON-RPC error: ${clip(JSON.stringify(message.error))}`;
  if (!isObject(message.result)) return `no result: ${clip(body)}`;
  return message.result;
}

/** A complete tools/call result whose first text block is `text` (or starts with `prefix`). */
export function expectText(result: Json, expected: { text: string } | { prefix: string }): string | undefined {
  if (result.resultType !== 'complete') return `resultType ${String(result.resultType)}, expected complete`;
  if (result.isError === true) return `tool error: ${clip(JSON.stringify(result.content))}`;
  const first = Array.isArray(result.content) ? (result.content[0] as Json | undefined) : undefined;
  const text = first?.type === 'text' ? first.text : undefined;
  if (typeof text !== 'string') return 'no text content';
  const ok = 'text' in expected ? text === expected.text : text.startsWith(expected.prefix);
  return ok ? undefined : `text ${JSON.stringify(clip(text))} is not the expected one`;
}

/** An input_required result that asks a form elicitation under `key`; its requestState, or an error message. */
export function expectFormQuestion(result: Json, key: string): { requestState: string } | string {
  if (result.resultType !== 'input_required') return `resultType ${String(result.resultType)}, expected input_required`;
  const requests = result.inputRequests;
  const request = isObject(requests) ? requests[key] : undefined;
  if (!isObject(request) || request.method !== 'elicitation/create') return `no elicitation/create under inputRequests.${key}`;
  if (!isObject(request.params) || request.params.mode !== 'form') return `inputRequests.${key} is not a form elicitation`;
  if (typeof result.requestState !== 'string') return 'no requestState';
  return { requestState: result.requestState };
}

/** A complete tools/list result with exactly `count` tools, each with a name and an object input schema. */
export function expectToolList(result: Json, count: number): string | undefined {
  if (result.resultType !== 'complete') return `resultType ${String(result.resultType)}, expected complete`;
  if (!Array.isArray(result.tools)) return 'no tools array';
  if (result.tools.length !== count) return `${result.tools.length} tools, expected ${count}`;
  for (const tool of result.tools) {
    if (!isObject(tool) || typeof tool.name !== 'string' || !isObject(tool.inputSchema) || tool.inputSchema.type !== 'object') {
      return `malformed tool ${clip(JSON.stringify(tool))}`;
    }
  }
  return undefined;
}
