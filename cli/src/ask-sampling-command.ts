/**
 * `--sampling-command "<cmd>"`: a sampling request answered by a shell
 * command, which gets the request as JSON on stdin and prints the answer's
 * text on stdout.
 */

import { spawn } from 'node:child_process';
import type { CreateMessageRequestParams, CreateMessageResult } from 'tessera-mcp/client';
import { CliError } from './errors.js';

export function textResult(text: string, model: string): CreateMessageResult {
  return { role: 'assistant', content: { type: 'text', text }, model, stopReason: 'endTurn' };
}

/** Runs the configured command with the request JSON on stdin; its stdout (trailing newline dropped) is the answer. */
export async function runSamplingCommand(command: string, params: CreateMessageRequestParams, signal: AbortSignal): Promise<CreateMessageResult> {
  const child = spawn(command, { shell: true, stdio: ['pipe', 'pipe', 'inherit'], signal });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  child.stdin.on('error', () => undefined); // a command that does not read its stdin is fine
  child.stdin.end(JSON.stringify(params));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', (error) => reject(new CliError(`--sampling-command could not run: ${error.message}`)));
    child.on('close', (exitCode) => resolve(exitCode));
  });
  if (code !== 0) throw new CliError(`--sampling-command "${command}" exited with code ${code ?? 'none (killed)'}`);
  const text = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (text === '') throw new CliError(`--sampling-command "${command}" printed no answer`);
  return textResult(text, 'sampling-command');
}
