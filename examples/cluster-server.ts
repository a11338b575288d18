/**
 * The server of the several-instances recipe (docs/several-instances.md), the
 * one the cluster test runs three of behind nginx:
 *
 *   tessera serve dist/examples/cluster-server.js --port 3001 --redis redis://127.0.0.1:6379
 *
 * It exports a factory, so `tessera serve` hands it the state keys and, with
 * `--redis`, the shared stores. Results name the instance that produced them
 * (INSTANCE_NAME, default its PID), so you can watch a round-robin balancer
 * spread calls over several processes (`--log` shows each round's instance).
 * Questions asked in input rounds do not: an answer is matched to the exact
 * question it answers, and the next round may run on another instance, which
 * must ask the same thing. A task's questions may, since the instance that
 * runs the task asks them all.
 *
 *   survey           asks a name, then a colour (two rounds)         → "Hello <name> … answered by <instance>"
 *   confirm_payment  {amount}, single-use state: one confirmation    → "<amount> paid by <instance>"
 *   long_job         a task: asks to start, then asks again (naming the instance running it)
 *   touch_notes      announces that notes://shared changed (listen streams on every instance hear it)
 *
 * TASK_LEASE_MS shortens the lease on running tasks (default 15 s): a task
 * whose instance died reads `failed` once it lapses.
 */

import { z } from 'zod';
import { ask, McpServer, type McpServerOptions } from 'tessera-mcp';

export const NOTES_URI = 'notes://shared';

export default function clusterServer(options: McpServerOptions = {}): McpServer {
  const instance = process.env.INSTANCE_NAME ?? `pid ${process.pid}`;
  const leaseMs = Number(process.env.TASK_LEASE_MS) || undefined;
  const server = new McpServer(
    { name: 'cluster-demo', version: '1.0.0' },
    { ...options, tasks: { ...options.tasks, ...(leaseMs ? { leaseMs } : {}) } },
  );
  let notesVersion = 0;

  server.tool('survey', { description: 'Asks a name, then a colour; says which instance asked what' }, async (_args, ctx) => {
    const name = await ctx.ask(ask.form('What is your name?', z.object({ name: z.string() }), { key: 'name' }));
    if (name.action !== 'accept') return `No name given (answered by ${instance})`;
    const colour = await ctx.ask(ask.form(`Favourite colour, ${name.content.name}?`, z.object({ colour: z.string() }), { key: 'colour' }));
    const favourite = colour.action === 'accept' ? colour.content.colour : 'none';
    return `Hello ${name.content.name}, ${favourite} it is (answered by ${instance})`;
  });

  server.tool(
    'confirm_payment',
    { description: 'Pays once: the confirmation can be redeemed a single time, on any instance', input: z.object({ amount: z.string() }), singleUseState: true },
    async ({ amount }, ctx) => {
      const answer = await ctx.ask(ask.form(`Pay ${amount}?`, z.object({ confirm: z.boolean() }), { key: 'confirm' }));
      return answer.action === 'accept' && answer.content.confirm ? `${amount} paid by ${instance}` : `${amount} not paid (${instance})`;
    },
  );

  server.tool('long_job', { description: 'A task that asks twice, then runs until cancelled', task: 'required' }, async (_args, ctx) =>
    ctx.task(async (task) => {
      const start = await task.ask(ask.form(`[${instance}] Start the job?`, z.object({ label: z.string() }), { key: 'start' }));
      const label = start.action === 'accept' ? start.content.label : 'unnamed';
      // The second question carries the first answer: whoever reads the task sees that the answer reached this instance.
      await task.ask(ask.form(`[${instance}] Job "${label}" started; finish it?`, z.object({ finish: z.boolean() }), { key: 'finish' }));
      return `Job "${label}" finished by ${instance}`;
    }),
  );

  server.resource({ uri: NOTES_URI, name: 'shared notes', mimeType: 'text/plain' }, () => `notes version ${notesVersion} (read on ${instance})`);
  server.tool('touch_notes', { description: `Announces that ${NOTES_URI} changed` }, () => {
    notesVersion += 1;
    server.resourceUpdated(NOTES_URI);
    return `${NOTES_URI} touched by ${instance}`;
  });

  return server;
}
