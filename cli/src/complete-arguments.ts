/**
 * `tessera call`'s arguments checked against the tool's input schema before
 * anything is sent: a name the tool does not have is a usage error naming it
 * (a server would drop it silently), and a required argument left out is
 * asked for in the terminal, or named in a usage error when nobody can be
 * asked (no terminal, --no-input, --answers).
 */

import type { Tool } from 'tessera-mcp/client';
import { UsageError } from './errors.js';
import { readFormFields } from './form-fields.js';
import { inertLine } from './inert-text.js';
import { colors, say } from './terminal.js';
import { missingArguments, sampleArguments, unknownArguments } from './tool-arguments.js';

type Json = Record<string, unknown>;

function names(list: readonly string[]): string {
  const quoted = list.map((name) => `"${inertLine(name)}"`);
  return quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(', ')} and ${quoted.at(-1)!}`;
}

export async function completeArguments(tool: Tool, given: Json, ask: { mayAsk: boolean; signal: AbortSignal }): Promise<Json> {
  const unknown = unknownArguments(given, tool.inputSchema);
  if (unknown.length > 0) {
    const known = readFormFields(tool.inputSchema).map((field) => (field.required ? field.name : `[${field.name}]`));
    throw new UsageError(
      `The tool "${inertLine(tool.name)}" has no argument${unknown.length > 1 ? 's' : ''} ${names(unknown)}. ` +
        (known.length > 0 ? `Its arguments: ${inertLine(known.join(' '))}` : 'It takes no arguments.'),
    );
  }
  const missing = missingArguments(given, tool.inputSchema);
  if (missing.length === 0) return given;
  if (!ask.mayAsk) {
    throw new UsageError(`The tool "${inertLine(tool.name)}" needs ${names(missing)}: e.g. ${inertLine(`${tool.name} ${sampleArguments(tool.inputSchema)}`)}`);
  }
  say(colors.dim(`${inertLine(tool.name)} needs ${names(missing)}:`));
  const { askField } = await import('./ask-form.js');
  const args = { ...given };
  for (const field of readFormFields(tool.inputSchema).filter((f) => missing.includes(f.name))) {
    const value = await askField(field, ask.signal);
    if (value !== undefined) args[field.name] = value;
  }
  return args;
}
