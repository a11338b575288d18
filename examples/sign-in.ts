/**
 * URL-mode elicitation: the tool sends the user to a sign-in page, and on each
 * retry checks whether the sign-in finished. `accept` only means the user agreed
 * to open the URL, so the tool asks again (a new question, a new key) until the
 * sign-in is done or the user gives up.
 *
 * The "identity provider" here is a page this example serves itself; a real one
 * must also check that the person who opens the URL is the one who asked
 * (spec: bind the elicitation to the user) and never put secrets in the URL.
 */

import { randomUUID } from 'node:crypto';
import { ask, type McpServer } from 'tessera-mcp';

/** Sign-in flows completed on the sign-in page, by flow id. */
export const completedSignIns = new Set<string>();

export function addSignInTool(server: McpServer, signInPageUrl: () => string): void {
  server.tool(
    'connect_calendar',
    { description: 'Connects your calendar after you sign in in the browser.' },
    async (_args, ctx) => {
      // The flow id is made once and kept in sealed state, so every round talks about the same sign-in.
      const flow = await ctx.once('flow', () => randomUUID());
      for (let attempt = 1; attempt <= 3; attempt++) {
        if (completedSignIns.has(flow)) return 'Calendar connected.';
        const answer = await ctx.ask(
          ask.url(
            attempt === 1 ? 'Sign in to Example Calendar' : 'The sign-in has not finished yet; open the page again',
            `${signInPageUrl()}?flow=${flow}`,
            { key: `sign_in_${attempt}` },
          ),
        );
        if (answer.action !== 'accept') return 'Sign-in cancelled.';
      }
      return completedSignIns.has(flow) ? 'Calendar connected.' : 'Sign-in did not finish; try again later.';
    },
  );
}
