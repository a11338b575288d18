/**
 * Where the `tessera` command keeps its own files: $TESSERA_CONFIG_DIR, else
 * the platform's per-user config directory (XDG_CONFIG_HOME or ~/.config on
 * Linux and macOS, %APPDATA% on Windows), under "tessera".
 */

import { homedir } from 'node:os';
import { join } from 'node:path';

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.TESSERA_CONFIG_DIR) return env.TESSERA_CONFIG_DIR;
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'tessera');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'tessera');
}

/** The sign-ins: tokens and client registrations, one 0600 file. */
export function tokenFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(configDir(env), 'tokens.json');
}
