/**
 * The per-process key warning where it cannot matter (issue 24): the kit runs
 * every round in this process, so a server without a configured key needs no
 * warning. Its own file: the warning is given once per process (module), and
 * nothing may have sealed before this test does.
 */

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, McpServer } from '../../src/index.js';
import { accept, testServer } from '../../src/testing.js';
import { recordingLogger } from '../helpers/recording-logger.js';

describe('a server without a configured key, in the kit', () => {
  it('gives no warning about its per-process key: the kit keeps every round in this process', async () => {
    const logger = recordingLogger();
    const server = new McpServer({ name: 'keyless', version: '1.0.0' }, { logger });
    server.tool('confirm', {}, async (_args, ctx) => {
      const answer = await ctx.ask(ask.form('Sure?', z.object({ ok: z.boolean() }), { key: 'sure' }));
      return answer.action === 'accept' && answer.content.ok ? 'done' : 'not done';
    });
    const run = await testServer(server).callTool('confirm', {}, { sure: accept({ ok: true }) });
    expect(run.text).toBe('done');
    expect(run.rounds).toBe(2);
    expect(logger.warns.filter((line) => line.includes('no requestState key'))).toEqual([]);
  });
});
