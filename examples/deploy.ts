/**
 * The deploy confirmation from the seed article: the tool asks, in plain code,
 * and deploys only after the user approves. The deployment itself runs inside
 * `ctx.once`, so a replayed round can never deploy twice.
 */

import { z } from 'zod';
import { ask, type McpServer } from 'tessera-mcp';

export interface Deployment {
  id: string;
  service: string;
  env: string;
}

const deployments: Deployment[] = [];

/** Stand-in for the real deployment. */
async function startDeployment(service: string, env: string): Promise<string> {
  const id = `${service}-${env}-${deployments.length + 1}`;
  deployments.push({ id, service, env });
  return id;
}

/** The deployments made so far (newest last). */
export function deploymentHistory(): readonly Deployment[] {
  return deployments;
}

export function addDeployTool(server: McpServer): void {
  server.tool(
    'deploy',
    {
      description: 'Deploy a service to an environment, once the user confirms.',
      input: z.object({ service: z.string(), env: z.enum(['staging', 'prod']) }),
    },
    async ({ service, env }, ctx) => {
      const answer = await ctx.ask(
        ask.form(`Deploy ${service} to ${env}?`, z.object({ approve: z.boolean().describe('Approve the deployment') }), { key: 'confirm' }),
      );
      if (answer.action !== 'accept' || !answer.content.approve) return 'Deployment cancelled.';
      const id = await ctx.once('deploy', () => startDeployment(service, env));
      return `Deployed ${service} to ${env} (deployment ${id}).`;
    },
  );
}
