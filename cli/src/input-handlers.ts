/**
 * The answers the command gives to a server's questions, in order of
 * preference: the `--answers` file; for sampling, `--sampling-command`; then
 * the person at the terminal. With `--answers`, or with no terminal, a
 * question nobody can answer fails at once (exit 2) instead of waiting.
 *
 * The first failure is also kept aside: a 2025-11-25 server receives a
 * handler's error as a JSON-RPC error and may carry on, and the command must
 * still exit with that failure rather than with whatever the server did next.
 */

import { pathToFileURL } from 'node:url';
import {
  ServerCancelledError,
  type CreateMessageRequestParams,
  type CreateMessageResult,
  type ElicitRequestFormParams,
  type ElicitRequestUrlParams,
  type ElicitResult,
  type InputContext,
  type InputHandlers,
  type Root,
} from 'tessera-mcp/client';
// The terminal question modules (and the prompt library) load only when a person is asked.
import { runSamplingCommand } from './ask-sampling-command.js';
import type { AnswersFile } from './answers-file.js';
import { CliError, InterruptedError, MissingAnswerError, UsageError } from './errors.js';
import { checkContent, exampleContent, readFormFields } from './form-fields.js';
import type { ProgressBar } from './progress-bar.js';
import { inertLine } from './inert-text.js';
import { askerName, canAskPerson, colors, say } from './terminal.js';

export interface AnsweringOptions {
  answers?: AnswersFile;
  samplingCommand?: string;
  /** --no-input: never ask in the terminal, even when there is one. */
  noInput?: boolean;
  roots: Root[];
  progress: ProgressBar;
}

export interface Answering {
  handlers: InputHandlers;
  /** The first failure while answering, if any: it decides the exit code. */
  failure(): CliError | undefined;
}

/**
 * `--root` values as roots: a file:// URI as given, a path as a file:// URI;
 * none means none (a root grants the server a directory to work in, so it is
 * never offered unasked). Roots are file:// URIs (spec §8.3), so any other
 * URI is a usage error here rather than a refused answer later.
 */
export function rootsFrom(values: readonly string[]): Root[] {
  return values.map((value) => {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
      if (!/^file:\/\//i.test(value)) throw new UsageError(`--root ${value}: a root is a directory path or a file:// URI`);
      return { uri: value };
    }
    const uri = pathToFileURL(value).href;
    const name = uri.replace(/\/+$/, '').split('/').pop();
    return name ? { uri, name: decodeURIComponent(name) } : { uri };
  });
}

/**
 * The name an answers file uses for a question: its input request key, or on
 * a 2025-11-25 server (a live request, whose key is only a JSON-RPC id) its message.
 */
export function answerKey(context: InputContext, message: string | undefined): string {
  return context.era === 'legacy' && message !== undefined ? message : context.key;
}

function noPerson(context: InputContext, message: string, noInput: boolean): MissingAnswerError {
  const why = noInput ? 'but --no-input says not to ask. Pass --answers <file.json>' : 'but there is no terminal to ask in. Run the command in a terminal, or pass --answers <file.json>';
  const key = answerKey(context, message);
  return new MissingAnswerError(`The server asked ${JSON.stringify(key)}${key === message ? '' : ` (${JSON.stringify(message)})`}, ${why} (see tessera help).`);
}

export function createAnswering(options: AnsweringOptions): Answering {
  let firstFailure: CliError | undefined;
  const mayAsk = (): boolean => options.noInput !== true && canAskPerson();

  /**
   * Runs one answer with the progress bar put away, keeping the first
   * failure. A question the server withdrew (a 2025-11-25 server that gave
   * up waiting) is no failure: it goes away with a line saying so.
   */
  const answering = async <T>(context: InputContext, work: () => Promise<T>): Promise<T> => {
    options.progress.stop();
    try {
      return await work();
    } catch (error) {
      const withdrawn = context.signal.reason;
      if (context.signal.aborted && withdrawn instanceof ServerCancelledError) {
        say(colors.yellow(`${askerName(context.server)} gave up on this question and no longer waits for the answer${withdrawn.reason ? ` (${inertLine(withdrawn.reason)})` : ''}.`));
        throw withdrawn;
      }
      const failure =
        error instanceof CliError
          ? error
          : error instanceof Error && error.name === 'ExitPromptError'
            ? new InterruptedError()
            : error instanceof Error && error.name === 'AbortPromptError'
              ? new CliError('The question was withdrawn (the request ended).')
              : new CliError((error as Error).message);
      firstFailure ??= failure;
      throw failure;
    }
  };

  const form = (params: ElicitRequestFormParams, context: InputContext): Promise<ElicitResult> =>
    answering(context, async () => {
      const fields = readFormFields(params.requestedSchema);
      if (options.answers) {
        const raw = options.answers.find(context.key, params.message);
        if (raw === undefined) options.answers.missing(answerKey(context, params.message), params.message, exampleContent(fields));
        const answer = options.answers.elicitation(context.key, raw);
        if (answer.action === 'accept') {
          const problems = checkContent(fields, answer.content ?? {});
          if (problems.length > 0) throw new UsageError(`--answers ${options.answers.path}: the answer to "${answerKey(context, params.message)}" does not fit the form: ${problems.join('; ')}`);
        }
        return answer;
      }
      if (!mayAsk()) throw noPerson(context, params.message, options.noInput === true);
      const { askForm } = await import('./ask-form.js');
      return askForm(params, context);
    });

  const url = (params: ElicitRequestUrlParams, context: InputContext): Promise<ElicitResult> =>
    answering(context, async () => {
      if (options.answers) {
        const raw = options.answers.find(context.key, params.message);
        if (raw === undefined) options.answers.missing(answerKey(context, params.message), params.message, 'accept');
        const { action } = options.answers.elicitation(context.key, raw);
        return { action };
      }
      if (!mayAsk()) throw noPerson(context, params.message, options.noInput === true);
      const { askUrl } = await import('./ask-url.js');
      return askUrl(params, context);
    });

  const sampling = (params: CreateMessageRequestParams, context: InputContext): Promise<CreateMessageResult> =>
    answering(context, async () => {
      // Sampling asks carry no message: a 2025-era one (keyed by a JSON-RPC id) is found under "sampling".
      const raw = options.answers?.find(context.key, 'sampling');
      if (options.answers && raw !== undefined) return options.answers.sampling(context.key, raw);
      if (options.samplingCommand !== undefined) return runSamplingCommand(options.samplingCommand, params, context.signal);
      if (options.answers) options.answers.missing(context.era === 'legacy' ? 'sampling' : context.key, undefined, "the model's answer");
      if (!mayAsk()) throw noPerson(context, 'a model completion (sampling); or pass --sampling-command', options.noInput === true);
      const { askSampling } = await import('./ask-sampling.js');
      return askSampling(params, context);
    });

  return {
    // No roots given: no roots capability, so the server asks for none.
    handlers: { elicitation: { form, url }, sampling, ...(options.roots.length > 0 ? { roots: options.roots } : {}) },
    failure: () => firstFailure,
  };
}
