/** Completion (spec §9.6): completion/complete for prompt arguments and template variables. */

import { describe, expect, it } from 'vitest';
import { McpServer, type CompletionRequest } from '../../src/index.js';
import { call } from '../helpers/in-process.js';
import { errorOf, quietLogger, resultOf } from '../helpers/results.js';

type Completion = { values: string[]; total?: number; hasMore?: boolean };

const LANGUAGES = ['python', 'perl', 'php', 'rust', 'ruby'];

function buildServer(): { server: McpServer; requests: CompletionRequest[] } {
  const requests: CompletionRequest[] = [];
  const server = new McpServer({ name: 'completion-test', version: '1.0.0' }, { logger: quietLogger() });
  server.prompt(
    'review',
    {
      arguments: [{ name: 'language', required: true }, { name: 'framework' }, { name: 'free' }],
      complete: {
        language: (request) => {
          requests.push(request);
          return LANGUAGES.filter((l) => l.startsWith(request.value));
        },
        framework: (request) => {
          requests.push(request);
          return request.arguments.language === 'python' ? ['django', 'flask'] : ['rails'];
        },
      },
    },
    () => 'x',
  );
  server.prompt(
    'huge',
    { arguments: [{ name: 'n' }], complete: { n: () => Array.from({ length: 150 }, (_, i) => `v${i}`) } },
    () => 'x',
  );
  server.resourceTemplate(
    {
      uriTemplate: 'test://repos/{owner}/{repo}',
      name: 'repo',
      complete: {
        owner: (request) => {
          requests.push(request);
          return ['alice', 'albert', 'bob'].filter((o) => o.startsWith(request.value));
        },
        repo: (request) => {
          requests.push(request);
          return request.arguments.owner === 'alice' ? ['alpha', 'apollo'] : [];
        },
      },
    },
    () => 'x',
  );
  return { server, requests };
}

async function complete(server: McpServer, params: Record<string, unknown>): Promise<Completion> {
  const result = resultOf(await call(server, 'completion/complete', params));
  expect(result.resultType).toBe('complete');
  // completion/complete is not cacheable.
  expect(result).not.toHaveProperty('ttlMs');
  return result.completion as Completion;
}

describe('completion/complete', () => {
  it('is advertised as the completions capability', async () => {
    const { server } = buildServer();
    const discover = resultOf(await call(server, 'server/discover'));
    expect(discover.capabilities).toHaveProperty('completions');
    expect((discover.capabilities as Record<string, unknown>).completions).toEqual({});
  });

  it('completes a prompt argument (ref/prompt) from the partial value', async () => {
    const { server, requests } = buildServer();
    const completion = await complete(server, { ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'language', value: 'p' } });
    expect(completion.values).toEqual(['python', 'perl', 'php']);
    expect(requests[0]?.value).toBe('p');
  });

  it('completes a resource template variable (ref/resource)', async () => {
    const { server } = buildServer();
    const completion = await complete(server, {
      ref: { type: 'ref/resource', uri: 'test://repos/{owner}/{repo}' },
      argument: { name: 'owner', value: 'al' },
    });
    expect(completion.values).toEqual(['alice', 'albert']);
  });

  it('passes context.arguments to the completer', async () => {
    const { server, requests } = buildServer();
    const prompt = await complete(server, {
      ref: { type: 'ref/prompt', name: 'review' },
      argument: { name: 'framework', value: '' },
      context: { arguments: { language: 'python' } },
    });
    expect(prompt.values).toEqual(['django', 'flask']);
    expect(requests.at(-1)?.arguments).toEqual({ language: 'python' });

    const resource = await complete(server, {
      ref: { type: 'ref/resource', uri: 'test://repos/{owner}/{repo}' },
      argument: { name: 'repo', value: 'a' },
      context: { arguments: { owner: 'alice' } },
    });
    expect(resource.values).toEqual(['alpha', 'apollo']);
    expect(requests.at(-1)?.arguments).toEqual({ owner: 'alice' });
  });

  it('returns at most 100 values, with total and hasMore saying more exist', async () => {
    const { server } = buildServer();
    const completion = await complete(server, { ref: { type: 'ref/prompt', name: 'huge' }, argument: { name: 'n', value: '' } });
    expect(completion.values.length).toBeLessThanOrEqual(100);
    expect(completion.values).toEqual(Array.from({ length: 100 }, (_, i) => `v${i}`));
    expect(completion.total).toBe(150);
    expect(completion.hasMore).toBe(true);
  });

  it('says hasMore when it had to cut a completer answer that claimed to be whole', async () => {
    const server = new McpServer({ name: 'completion-test', version: '1.0.0' }, { logger: quietLogger() });
    const values = Array.from({ length: 120 }, (_, i) => `w${i}`);
    server.prompt('cut', { arguments: [{ name: 'a' }], complete: { a: () => ({ values, total: 120, hasMore: false }) } }, () => 'x');
    const completion = await complete(server, { ref: { type: 'ref/prompt', name: 'cut' }, argument: { name: 'a', value: '' } });
    expect(completion.values).toHaveLength(100);
    // hasMore: "additional completion options beyond those provided in the current response".
    expect(completion.hasMore).toBe(true);
    expect(completion.total).toBe(120);
  });

  it('is not offered by a server without prompts or resources: no capability, -32601', async () => {
    const server = new McpServer({ name: 'completion-test', version: '1.0.0' }, { logger: quietLogger() });
    server.tool('only-tool', {}, () => 'x');
    const discover = resultOf(await call(server, 'server/discover'));
    expect(discover.capabilities).not.toHaveProperty('completions');
    const error = errorOf(
      await call(server, 'completion/complete', { ref: { type: 'ref/prompt', name: 'x' }, argument: { name: 'a', value: '' } }),
    );
    expect(error.code).toBe(-32601);
  });

  it('answers an unknown prompt with -32602', async () => {
    const { server } = buildServer();
    const error = errorOf(
      await call(server, 'completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'language', value: '' } }),
    );
    expect(error.code).toBe(-32602);
  });

  it('returns no values for an argument without a completer', async () => {
    const { server } = buildServer();
    const completion = await complete(server, { ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'free', value: 'x' } });
    expect(completion.values).toEqual([]);
    expect(completion.hasMore ?? false).toBe(false);
  });

  it('answers a malformed ref or argument with -32602', async () => {
    const { server } = buildServer();
    const badRef = await call(server, 'completion/complete', { ref: { type: 'ref/unknown', name: 'x' }, argument: { name: 'a', value: '' } });
    expect(errorOf(badRef).code).toBe(-32602);
    const badArgument = await call(server, 'completion/complete', { ref: { type: 'ref/prompt', name: 'review' }, argument: { name: 'language' } });
    expect(errorOf(badArgument).code).toBe(-32602);
  });
});
