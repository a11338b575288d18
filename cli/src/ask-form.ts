/**
 * A form elicitation asked in the terminal: the message, then accept /
 * decline / cancel, then each field of the requested schema in order, with
 * the prompt that suits its type and the checks of form-fields.ts (a wrong
 * value shows why and is typed again).
 */

import { checkbox, input, select } from '@inquirer/prompts';
import type { ElicitRequestFormParams, ElicitResult, InputContext } from 'tessera-mcp/client';
import { checkChoices, checkText, describeNumber, readFormFields, readNumber, type FormField } from './form-fields.js';
import { askerName, colors, promptContext, say } from './terminal.js';
import { inert, inertJson, inertLine } from './inert-text.js';

type Content = NonNullable<ElicitResult['content']>;
type Action = ElicitResult['action'];

/** Shows who asks what, and the key it is asked under (the key `--answers` files use; 2025-era questions have none). */
export function showQuestion(message: string, context: InputContext): void {
  say();
  const key = context.era === 'legacy' ? '' : ` ${colors.dim(`[${inertLine(context.key)}]`)}`;
  say(`${colors.bold(colors.cyan('?'))} ${colors.bold(askerName(context.server))} asks: ${colors.bold(inert(message))}${key}`);
}

/** accept / decline / cancel, with what each means here. */
export async function chooseAction(acceptLabel: string, signal: AbortSignal): Promise<Action> {
  return select<Action>(
    {
      message: 'Your answer',
      choices: [
        { value: 'accept', name: acceptLabel },
        { value: 'decline', name: 'Decline', description: 'Say no: the server is told you declined.' },
        { value: 'cancel', name: 'Cancel', description: 'Dismiss the question without deciding.' },
      ],
    },
    promptContext(signal),
  );
}

/** A choice as the person sees it: its label, and its value when they differ. */
function optionName(option: { value: string; label: string }): string {
  return option.label === option.value ? inertLine(option.value) : `${inertLine(option.label)} ${colors.dim(`(${inertLine(option.value)})`)}`;
}

function fieldMessage(field: FormField, hint?: string): string {
  const parts = [colors.bold(inertLine(field.label))];
  if (field.label !== field.name) parts.push(colors.dim(`(${inertLine(field.name)})`));
  if (field.description) parts.push(`— ${inert(field.description)}`);
  if (hint) parts.push(colors.dim(`[${hint}]`));
  if (!field.required) parts.push(colors.dim('optional'));
  return parts.join(' ');
}

const FORMAT_HINTS: Record<string, string> = {
  email: 'email',
  uri: 'URI',
  date: 'date, YYYY-MM-DD',
  'date-time': 'date and time, e.g. 2026-07-28T09:30:00Z',
};

/** The value for one field, or undefined to leave an optional field out. */
export async function askField(field: FormField, signal: AbortSignal): Promise<Content[string] | undefined> {
  const context = promptContext(signal);
  switch (field.kind) {
    case 'text': {
      const text = await input(
        {
          message: fieldMessage(field, field.format ? FORMAT_HINTS[field.format] : undefined),
          // A default that would carry control characters to the terminal is not offered (it could not be shown as it is).
          ...(field.default !== undefined && inertLine(field.default) === field.default ? { default: field.default } : {}),
          required: field.required,
          validate: (value) => (value === '' && !field.required) || (checkText(field, value) ?? true),
        },
        context,
      );
      return text === '' && !field.required ? undefined : text;
    }
    case 'number': {
      const text = await input(
        {
          message: fieldMessage(field, describeNumber(field)),
          ...(field.default !== undefined ? { default: String(field.default) } : {}),
          validate: (value) => {
            if (value.trim() === '') return field.required ? `Enter ${describeNumber(field)}` : true;
            const read = readNumber(field, value);
            return typeof read === 'number' || read;
          },
        },
        context,
      );
      return text.trim() === '' ? undefined : Number(text.trim());
    }
    case 'boolean': {
      // A typed yes/no rather than a confirm prompt: anything else is refused, never read as the default.
      const fallback = field.default === undefined ? undefined : field.default ? 'yes' : 'no';
      const text = await input(
        {
          message: fieldMessage(field, 'y/n'),
          ...(fallback !== undefined ? { default: fallback } : {}),
          validate: (value) => {
            if (/^(y|yes|n|no|true|false)$/i.test(value.trim())) return true;
            if (value.trim() === '' && !field.required) return true;
            return 'Answer y (yes) or n (no)';
          },
          transformer: (value, { isFinal }) => (isFinal && value.trim() !== '' ? (/^(y|yes|true)$/i.test(value.trim()) ? 'Yes' : 'No') : value),
        },
        context,
      );
      return text.trim() === '' ? undefined : /^(y|yes|true)$/i.test(text.trim());
    }
    case 'choice': {
      const LEAVE_OUT = '\u0000leave-out';
      const choices = field.options.map((o) => ({ value: o.value, name: optionName(o) }));
      if (!field.required) choices.push({ value: LEAVE_OUT, name: colors.dim('(leave empty)') });
      const value = await select<string>({ message: fieldMessage(field), choices, ...(field.default !== undefined ? { default: field.default } : {}) }, context);
      return value === LEAVE_OUT ? undefined : value;
    }
    case 'choices': {
      const values = await checkbox<string>(
        {
          message: fieldMessage(field, 'space to pick, enter to finish'),
          choices: field.options.map((o) => ({
            value: o.value,
            name: optionName(o),
            checked: field.default?.includes(o.value) ?? false,
          })),
          validate: (picked) => checkChoices(field, picked.map((c) => c.value)) ?? true,
        },
        context,
      );
      return values.length === 0 && !field.required ? undefined : values;
    }
    case 'json': {
      // Outside the form rules (a server off the spec): take JSON, so the person can still answer.
      const text = await input(
        {
          message: fieldMessage(field, 'JSON'),
          ...(field.default !== undefined ? { default: inertJson(field.default) } : {}),
          validate: (value) => {
            if (value.trim() === '') return !field.required || 'Enter a JSON value';
            try {
              JSON.parse(value);
              return true;
            } catch {
              return 'Enter valid JSON';
            }
          },
        },
        context,
      );
      return text.trim() === '' ? undefined : (JSON.parse(text) as Content[string]);
    }
  }
}

export async function askForm(params: ElicitRequestFormParams, context: InputContext): Promise<ElicitResult> {
  showQuestion(params.message, context);
  const fields = readFormFields(params.requestedSchema);
  const action = await chooseAction(fields.length > 0 ? 'Accept and fill in the form' : 'Accept', context.signal);
  if (action !== 'accept') return { action };
  const content: Content = {};
  for (const field of fields) {
    const value = await askField(field, context.signal);
    if (value !== undefined) content[field.name] = value;
  }
  return { action: 'accept', content };
}
