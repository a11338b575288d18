#!/usr/bin/env node
/**
 * The `tessera` command: parses the command line, runs the command, and maps
 * every outcome to an exit code (see errors.ts). The command is its own
 * package on top of the library, using only its public entry points.
 */

import { CommanderError } from 'commander';
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './errors.js';
import { buildProgram, USAGE } from './program.js';
import { splitAtDoubleDash } from './target.js';

async function main(argv: string[]): Promise<number> {
  const { ours, serverCommand } = splitAtDoubleDash(argv);
  let code = EXIT_OK;
  const program = buildProgram(serverCommand, (exitCode) => (code = exitCode));
  if (ours.length === 0) {
    program.outputHelp();
    return EXIT_OK;
  }
  try {
    await program.parseAsync(ours, { from: 'user' });
    return code;
  } catch (error) {
    // Commander has already printed its message (and the usage); help and --version end with 0.
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    if (error instanceof CliError) {
      process.stderr.write(`tessera: ${error.message}\n`);
      if (error.name === 'UsageError') process.stderr.write(`${USAGE}\n`);
      return error.exitCode;
    }
    process.stderr.write(`tessera: ${(error as Error)?.stack ?? String(error)}\n`);
    return EXIT_FAILURE;
  }
}

const code = await main(process.argv.slice(2));
// Exit once stdout has drained: a prompt library or a keep-alive socket must not hold the process open.
process.stdout.write('', () => process.exit(code));
