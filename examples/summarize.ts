/**
 * A tool that asks the client's model for a completion (sampling). Sampling is
 * deprecated in 2026-07-28 but still served; a client that cannot sample gets
 * a readable tool error instead of -32021, thanks to `ctx.canAsk`.
 */

import { z } from 'zod';
import { ask, toolError, type McpServer } from 'tessera-mcp';

export function addSummarizeTool(server: McpServer): void {
  server.tool(
    'summarize',
    {
      description: "Summarizes a text with the client's model.",
      input: z.object({ text: z.string().min(1) }),
    },
    async ({ text }, ctx) => {
      const question = ask.sampling(
        {
          messages: [{ role: 'user', content: { type: 'text', text: `Summarize in one sentence:\n\n${text}` } }],
          maxTokens: 200,
        },
        { key: 'summary' },
      );
      if (!ctx.canAsk(question)) return toolError('This tool needs a client that supports sampling.');
      const answer = await ctx.ask(question);
      const content = answer.content as { type?: string; text?: string };
      return content.type === 'text' && content.text ? content.text : toolError('The model answered with something other than text.');
    },
  );
}
