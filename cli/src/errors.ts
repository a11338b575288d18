/**
 * What can go wrong in the `tessera` command, and the exit code each means:
 * 1 for a failure (the server said no, could not be reached, the tool
 * reported an error), 2 for a command line or answers file that cannot work,
 * 130 when the user interrupted.
 */

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILURE,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The command line itself is wrong: exit 2, and the usage is worth showing. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
    this.name = 'UsageError';
  }
}

/** The server asked something nobody can answer here (no terminal, or not in --answers): exit 2, never a hang. */
export class MissingAnswerError extends CliError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
    this.name = 'MissingAnswerError';
  }
}

/** The user pressed Ctrl-C at a question. */
export class InterruptedError extends CliError {
  constructor(message = 'Interrupted.') {
    super(message, EXIT_INTERRUPTED);
    this.name = 'InterruptedError';
  }
}
