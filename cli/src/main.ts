#!/usr/bin/env node
/**
 * The `tessera` command: parses the command line, runs the command, and maps
 * every outcome to an exit code (see errors.ts). The command is its own
 * package on top of the library, using only its public entry points.
 */

import { CommanderError } from 'commander';
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from './errors.js';
import { inert } from './inert-text.js';
import { buildProgram, usageFor } from './program.js';
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
    // Messages may quote what a server sent: shown inert, never interpreted by the terminal.
    if (error instanceof CliError) {
      process.stderr.write(`tessera: ${inert(error.message)}\n`);
      if (error.name === 'UsageError') process.stderr.write(`${usageFor(ours.find((word) => !word.startsWith('-')))}\n`);
      return error.exitCode;
    }
    // Not one of ours: a bug. Its message, and its stack only when asked for.
    const unexpected = error instanceof Error ? (process.env.TESSERA_DEBUG ? (error.stack ?? error.message) : error.message) : String(error);
    process.stderr.write(`tessera: ${inert(unexpected)}\n`);
    return EXIT_FAILURE;
  }
}

const code = await main(process.argv.slice(2));
// Exit once stdout has drained: a prompt library or a keep-alive socket must not hold the process open.
process.stdout.write('', () => process.exit(code));
