/**
 * Sampling with tools (spec §8.2): a sampling input request may carry tools
 * only when the request declared `sampling.tools`, and the message list must
 * answer every tool_use with a matching tool_result in the next user message,
 * which holds nothing else.
 */

import { describe, expect, it } from 'vitest';
import { ask, McpServer } from '../../src/index.js';
import type { CreateMessageRequestParams, SamplingContent } from '../../src/protocol.js';
import { meta } from '../helpers/http.js';
import { call } from '../helpers/in-process.js';
import { errorOf, quietLogger, resultOf } from '../helpers/results.js';

const weatherTool = { name: 'get_weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } };

function conversation(answer: SamplingContent[]): CreateMessageRequestParams['messages'] {
  return [
    { role: 'user', content: { type: 'text', text: 'Weather in Paris?' } },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'call-1', name: 'get_weather', input: { city: 'Paris' } }] },
    { role: 'user', content: answer },
  ];
}

describe('ask.sampling with tools', () => {
  it('accepts a conversation whose tool_use is answered by a matching tool_result', () => {
    const question = ask.sampling({
      messages: conversation([{ type: 'tool_result', toolUseId: 'call-1', content: [{ type: 'text', text: 'Sunny' }] }]),
      maxTokens: 100,
      tools: [weatherTool],
    });
    expect(question.request.method).toBe('sampling/createMessage');
  });

  it('refuses a tool_use left unanswered', () => {
    expect(() => ask.sampling({ messages: conversation([{ type: 'text', text: 'no result' }]), maxTokens: 100 })).toThrow(/call-1/);
  });

  it('refuses a tool_result for another id', () => {
    expect(() =>
      ask.sampling({ messages: conversation([{ type: 'tool_result', toolUseId: 'other', content: [] }]), maxTokens: 100 }),
    ).toThrow(/call-1/);
  });

  it('refuses a user message mixing tool results with text', () => {
    expect(() =>
      ask.sampling({
        messages: conversation([
          { type: 'tool_result', toolUseId: 'call-1', content: [] },
          { type: 'text', text: 'and more' },
        ]),
        maxTokens: 100,
      }),
    ).toThrow(/only tool results/);
  });

  it('sends tools only to a request that declared sampling.tools; otherwise -32021 naming it', async () => {
    const server = new McpServer({ name: 'sampling-tools', version: '1.0.0' }, { logger: quietLogger() });
    server.tool('forecast', {}, async (_args, ctx) => {
      const answer = await ctx.ask(
        ask.sampling({ messages: [{ role: 'user', content: { type: 'text', text: 'Weather?' } }], maxTokens: 50, tools: [weatherTool] }),
      );
      return JSON.stringify(answer.content);
    });
    const withTools = await call(server, 'tools/call', {
      name: 'forecast',
      _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': { sampling: { tools: {} } } }),
    });
    const asked = resultOf(withTools);
    expect(asked.resultType).toBe('input_required');
    const request = Object.values(asked.inputRequests as Record<string, { params: { tools?: unknown[] } }>)[0]!;
    expect(request.params.tools).toHaveLength(1);

    const without = await call(server, 'tools/call', {
      name: 'forecast',
      _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } }),
    });
    expect(without.status).toBe(400);
    const error = errorOf(without);
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: { sampling: { tools: {} } } });
  });
});
