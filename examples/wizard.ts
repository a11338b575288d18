/**
 * A three-step wizard that keeps its progress in sealed state. Steps 1 and 2
 * end with a state-only round ("retry now"): the client retries at once and
 * whichever instance gets the retry picks up from the state. Step 3 asks the
 * user to confirm the plan.
 */

import { z } from 'zod';
import { ask, type McpServer, type RequestContext } from 'tessera-mcp';

/** What the wizard keeps between rounds (sealed into requestState; JSON). */
interface WizardState {
  step: 2 | 3;
  plan: string[];
}

export function addWizardTool(server: McpServer): void {
  server.tool(
    'create_project',
    {
      description: 'Plans and creates a project in three steps, asking for approval before the last one.',
      input: z.object({ name: z.string().min(1) }),
    },
    // Typing ctx types what the handler keeps: ctx.state is a WizardState, and inputRequired({ state }) must be one.
    async ({ name }, ctx: RequestContext<WizardState>) => {
      const state = ctx.state;

      if (state === undefined) {
        // Step 1: plan. A real wizard might take seconds here; the round ends as soon as the step is done.
        ctx.progress(1, { total: 3, message: 'Planned' });
        return ctx.inputRequired({ state: { step: 2, plan: [`repo ${name}`, `ci ${name}`] } });
      }

      if (state.step === 2) {
        // Step 2: add to the plan, then hand back again.
        ctx.progress(2, { total: 3, message: 'Sized' });
        return ctx.inputRequired({ state: { step: 3, plan: [...state.plan, `dashboard ${name}`] } });
      }

      // Step 3: the user approves the whole plan.
      const answer = await ctx.ask(
        ask.form(`Create ${state.plan.join(', ')}?`, z.object({ approve: z.boolean() }), { key: 'approve_plan' }),
      );
      if (answer.action !== 'accept' || !answer.content.approve) return `Project ${name} was not created.`;
      return `Created project ${name}: ${state.plan.join(', ')}.`;
    },
  );
}
