/**
 * URL-mode elicitation: the tool sends the user to a sign-in page, and on each
 * retry checks whether the sign-in finished. `accept` only means the user agreed
 * to open the URL, so the tool asks again (a new question, a new key) until the
 * sign-in is done or the user gives up.
 *
 * Behind a load balancer the retry may reach another instance than the one
 * that served the sign-in page, so finished sign-ins go into a store every
 * instance shares (`SignInStore`: memory here, your database or Redis in
 * production), and the URL the user opens is the public one (`PUBLIC_URL`),
 * not this process's own address.
 *
 * The "identity provider" here is a page this example serves itself; a real one
 * must also check that the person who opens the URL is the one who asked
 * (spec: bind the elicitation to the user) and never put secrets in the URL.
 */

import { ask, type McpServer } from 'tessera-mcp';

/** Where finished sign-ins are recorded, by flow id: shared by every instance. */
export interface SignInStore {
  markDone(flow: string): Promise<void>;
  isDone(flow: string): Promise<boolean>;
}

/** For one process (`npm start`); several instances need a shared store. */
export class MemorySignInStore implements SignInStore {
  private readonly done = new Set<string>();

  markDone(flow: string): Promise<void> {
    this.done.add(flow);
    return Promise.resolve();
  }

  isDone(flow: string): Promise<boolean> {
    return Promise.resolve(this.done.has(flow));
  }
}

export interface SignInOptions {
  /** The sign-in page as the user's browser reaches it (the public URL behind a proxy). */
  signInPageUrl: () => string;
  signIns: SignInStore;
}

export function addSignInTool(server: McpServer, { signInPageUrl, signIns }: SignInOptions): void {
  server.tool(
    'connect_calendar',
    { description: 'Connects your calendar after you sign in in the browser.', asks: ['url'] },
    async (_args, ctx) => {
      // The flow id is made once and kept in sealed state, so every round talks about the same sign-in.
      const flow = await ctx.once('flow', () => crypto.randomUUID());
      for (let attempt = 1; attempt <= 3; attempt++) {
        if (await signIns.isDone(flow)) return 'Calendar connected.';
        const answer = await ctx.ask(
          ask.url(
            attempt === 1 ? 'Sign in to Example Calendar' : 'The sign-in has not finished yet; open the page again',
            `${signInPageUrl()}?flow=${flow}`,
            { key: `sign_in_${attempt}` },
          ),
        );
        if (answer.action !== 'accept') return 'Sign-in cancelled.';
      }
      return (await signIns.isDone(flow)) ? 'Calendar connected.' : 'Sign-in did not finish; try again later.';
    },
  );
}
