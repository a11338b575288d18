/**
 * One raw client for both servers over stdio: spawns the server child (on
 * the servers' core where pinning is on), writes the same newline-delimited
 * 2026-07-28 `tools/call` echo (`_meta` with protocol version, client info
 * and capabilities, as the HTTP cells send) to either, and checks each reply
 * line by id and content. No SDK client on this side, so the ratio between
 * the two columns is the servers' alone (the SDK-client cells of
 * workloads/stdio.ts add each SDK's own client).
 */

import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { onServerCore } from '../harness/pinning.js';
import { stopPid, track, untrack } from '../harness/processes.js';
import { ECHO_TEXT, ECHO_TOOL } from '../tools/catalog.js';
import { expectText } from '../wire/checks.js';
import { toolsCallTemplate } from '../wire/requests.js';
import type { StdioSubject } from './stdio.js';

const echoBody = toolsCallTemplate(ECHO_TOOL, { text: ECHO_TEXT });

/** `args` are the server script's (e.g. `--stdio --tools echo`). */
export async function connectRaw(serverScript: string, args: string[]): Promise<StdioSubject> {
  const { command, args: spawnArgs } = onServerCore(process.execPath, [serverScript, ...args]);
  const child = spawn(command, spawnArgs, { stdio: ['pipe', 'pipe', 'inherit'] });
  const pid = child.pid;
  track(pid);
  const waiting = new Map<number, (line: string) => void>();
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    const match = /"id":(\d+)/.exec(line);
    const resolve = match ? waiting.get(Number(match[1])) : undefined;
    if (!resolve) return; // a notification or log line: not a reply
    waiting.delete(Number(match![1]));
    resolve(line);
  });
  let nextId = 1;
  const call = (): Promise<string | undefined> => {
    const id = nextId++;
    return new Promise((resolve) => {
      waiting.set(id, (line) => {
        let message: { id?: unknown; result?: Record<string, unknown>; error?: unknown };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          resolve(`not JSON: ${line.slice(0, 120)}`);
          return;
        }
        if (message.id !== id) resolve(`reply for id ${String(message.id)}, expected ${id}`);
        else if (message.error !== undefined || !message.result) resolve(`error ${JSON.stringify(message.error)}`);
        else resolve(expectText(message.result, { text: ECHO_TEXT }));
      });
      child.stdin.write(`${echoBody(id)}\n`);
    });
  };
  // The first reply proves the server is up and speaks 2026-07-28 (a cold call, never measured).
  const first = await call();
  if (first !== undefined) throw new Error(`${serverScript}: first echo over stdio failed: ${first}`);
  return {
    pid,
    callEcho: call,
    close: async () => {
      child.stdin.end();
      await stopPid(pid);
      untrack(pid);
    },
  };
}
