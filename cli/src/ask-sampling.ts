/**
 * A sampling request (the server wants a model's completion) answered in the
 * terminal: the conversation is shown and the person types the answer. (The
 * `--sampling-command` route is ask-sampling-command.ts.)
 */

import { input } from '@inquirer/prompts';
import type { CreateMessageRequestParams, CreateMessageResult, InputContext } from 'tessera-mcp/client';
import { isObject } from 'tessera-mcp/protocol';
import { textResult } from './ask-sampling-command.js';
import { showQuestion } from './ask-form.js';
import { colors, promptContext, say } from './terminal.js';
import { inertDeep } from './inert-text.js';

type Json = Record<string, unknown>;

/** One content block of a message as a line of text. */
function describeBlock(block: unknown): string {
  if (!isObject(block)) return String(block);
  switch (block.type) {
    case 'text':
      return String(block.text ?? '');
    case 'image':
    case 'audio':
      return colors.dim(`[${block.type} ${String(block.mimeType ?? '')}]`);
    case 'tool_use':
      return colors.dim(`[tool call ${String(block.name)} ${JSON.stringify(block.input ?? {})}]`);
    case 'tool_result':
      return colors.dim(`[tool result for ${String(block.toolUseId)}: ${JSON.stringify(block.content ?? [])}]`);
    default:
      return colors.dim(JSON.stringify(block));
  }
}

/** The conversation the server wants completed, as lines for the terminal. */
export function describeSamplingRequest(received: CreateMessageRequestParams): string[] {
  const params = inertDeep(received);
  const lines: string[] = [];
  if (params.systemPrompt) lines.push(`  ${colors.dim('system:')} ${params.systemPrompt}`);
  for (const message of params.messages) {
    const blocks = Array.isArray(message.content) ? message.content : [message.content];
    const text = blocks.map(describeBlock).join('\n');
    lines.push(`  ${colors.dim(`${message.role}:`)} ${text.replace(/\n/g, '\n    ')}`);
  }
  const limits = [`up to ${params.maxTokens} tokens`];
  if (params.tools?.length) limits.push(`tools offered: ${params.tools.map((t) => t.name).join(', ')} (this answer is text only)`);
  lines.push(colors.dim(`  (${limits.join('; ')})`));
  return lines;
}

export async function askSampling(params: CreateMessageRequestParams, context: InputContext): Promise<CreateMessageResult> {
  showQuestion('Answer as the model (sampling)', context);
  for (const line of describeSamplingRequest(params)) say(line);
  const text = await input({ message: 'The answer', required: true }, promptContext(context.signal));
  return textResult(text, 'typed-by-user');
}
