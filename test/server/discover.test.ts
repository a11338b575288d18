import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpServer } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { rpc, startHttp } from '../helpers/http.js';

describe('server/discover over HTTP', () => {
  let running: RunningHttpServer;
  beforeAll(async () => {
    const server = new McpServer({ name: 'discover-test', version: '1.2.3' }, { instructions: 'Be nice.' });
    server.tool('echo', { description: 'Echo' }, () => 'hi');
    running = await startHttp(server);
  });
  afterAll(() => running.close());

  it('advertises versions, capabilities, cache hints and identity', async () => {
    const reply = await rpc(running.url, 'server/discover');
    expect(reply.status).toBe(200);
    const result = reply.response!.result as Record<string, unknown>;
    expect(result.resultType).toBe('complete');
    expect(result.supportedVersions).toEqual(['2026-07-28']);
    expect(result.capabilities).toMatchObject({ tools: { listChanged: true } });
    expect(result).not.toHaveProperty('capabilities.prompts');
    expect(result.instructions).toBe('Be nice.');
    expect(Number.isInteger(result.ttlMs)).toBe(true);
    expect(['public', 'private']).toContain(result.cacheScope);
    expect(result._meta).toEqual({ 'io.modelcontextprotocol/serverInfo': { name: 'discover-test', version: '1.2.3' } });
  });
});
