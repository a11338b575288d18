/**
 * Key rotation during a rolling deploy, with two instances behind one URL
 * (issue 18; docs/state-security.md): the three-phase order (add the new key
 * as an opener, switch the sealer, drop the old key) loses no flow while the
 * instances are at different phases; the one-step order (`new,old` on one
 * instance while the other still has `old`) breaks flows that cross them.
 */

import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ask, generateStateKey, McpServer } from '../../src/index.js';
import { type RunningHttpServer } from '../../src/node.js';
import { startHttp } from '../helpers/http.js';
import { accept, runFlow, toolText } from '../helpers/mrtr-client.js';
import { quietLogger } from '../helpers/results.js';

const OLD = generateStateKey('old');
const NEW = generateStateKey('new');
const started: RunningHttpServer[] = [];

async function instance(keys: string): Promise<RunningHttpServer> {
  const server = new McpServer({ name: 'rotating', version: '1.0.0' }, { logger: quietLogger(), state: { keys, audience: 'rotating-cluster' } });
  server.tool('greet', {}, async (_args, ctx) => {
    const who = await ctx.ask(ask.form('Name?', z.object({ name: z.string() }), { key: 'name' }));
    const city = await ctx.ask(ask.form('City?', z.object({ city: z.string() }), { key: 'city' }));
    return who.action === 'accept' && city.action === 'accept' ? `${who.content.name} from ${city.content.city}` : 'no';
  });
  const running = await startHttp(server);
  started.push(running);
  return running;
}

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
});

/** A three-round flow whose rounds alternate between the two instances, starting on either. */
async function crossingFlows(a: RunningHttpServer, b: RunningHttpServer): Promise<string[]> {
  const results: string[] = [];
  for (const [first, second] of [
    [a, b],
    [b, a],
  ] as const) {
    const outcome = await runFlow({
      url: (round) => (round % 2 === 1 ? first.url : second.url),
      params: { name: 'greet' },
      capabilities: { elicitation: {} },
      answers: { name: accept({ name: 'Ada' }), city: accept({ city: 'Turin' }) },
    });
    results.push(outcome.error ? `error ${JSON.stringify(outcome.error)}` : toolText(outcome.result));
  }
  return results;
}

describe('rotating the state keys across two instances', () => {
  it('three phases lose no flow, with the instances one phase apart at every step', async () => {
    const phases = [OLD, `${OLD},${NEW}`, `${NEW},${OLD}`, NEW];
    for (let step = 0; step + 1 < phases.length; step++) {
      // A rolling deploy: one instance already on the next phase, the other not yet.
      const behind = await instance(phases[step]!);
      const ahead = await instance(phases[step + 1]!);
      expect(await crossingFlows(behind, ahead), `phases ${step} and ${step + 1}`).toEqual(['Ada from Turin', 'Ada from Turin']);
    }
  });

  it('the one-step order breaks every flow whose state crosses from the updated instance to the old one', async () => {
    const old = await instance(OLD);
    const updated = await instance(`${NEW},${OLD}`);
    // Either way round, some round's state was sealed with the new key and reaches the old instance.
    const results = await crossingFlows(old, updated);
    for (const result of results) expect(result).toContain('-32602');
  });
});
