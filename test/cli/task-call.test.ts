/**
 * `tessera call` against task tools of Tessera's task server (in this
 * process, over HTTP): it shows the task's status as it changes, answers the
 * task's questions like any other (here from --answers), prints the tool's
 * result, and Ctrl-C cancels the task on the server.
 */

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningHttpServer } from '../../src/node.js';
import { ROOT, stopAll } from '../helpers/child-processes.js';
import { Background, cliPath, runCli } from '../helpers/cli.js';
import { startHttp } from '../helpers/http.js';
import { buildTaskServer, type TaskServer } from '../helpers/task-server.js';
import { eventually } from '../helpers/tasks.js';

let fx: TaskServer;
let running: RunningHttpServer;
const dir = mkdtempSync(join(tmpdir(), 'tessera-task-call-'));

beforeAll(async () => {
  fx = buildTaskServer({ tasks: { pollIntervalMs: 100 } });
  running = await startHttp(fx.server);
});

afterAll(async () => {
  stopAll();
  fx.gates.openAll();
  await running.close();
  fx.server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('tessera call and tasks', () => {
  it('follows a task to its result, showing its status on stderr', async () => {
    const run = runCli(['call', running.url, 'gated', 'id=cli-1']);
    await eventually('the task started', () => fx.work.has('cli-1'));
    fx.gates.open('cli-1');
    const done = await run;
    expect(done).toMatchObject({ code: 0, stdout: 'gated cli-1 done\n' });
    const taskId = fx.work.get('cli-1')!.taskId;
    expect(done.stderr).toContain(`The server runs this call as task ${taskId}`);
    expect(done.stderr).toContain('task working');
    expect(done.stderr).toContain('task completed');
  });

  it("answers the task's question from --answers and says it waits for an answer meanwhile", async () => {
    const answers = join(dir, 'confirm.json');
    writeFileSync(answers, JSON.stringify({ 'confirm-1': { confirm: true } }));
    const done = await runCli(['call', running.url, 'confirm', 'id=cli-2', '--answers', answers]);
    expect(done).toMatchObject({ code: 0, stdout: 'Confirmed: yes\n' });
    expect(done.stderr).toContain('task waiting for your answer');
  });

  it("prints a failed task's error and exits 1", async () => {
    fx.gates.open('cli-3');
    const done = await runCli(['call', running.url, 'outcome', 'id=cli-3', 'kind=appError']);
    expect(done.code).toBe(1);
    expect(done.stderr).toContain('The server answered with error 4001: Quota exceeded');
    expect(done.stderr).toContain('task failed');
  });

  it('cancels the task on the server when interrupted (Ctrl-C), and exits 130', async () => {
    const call = new Background(spawn(process.execPath, [cliPath(), 'call', running.url, 'gated', 'id=cli-4'], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } }));
    await call.waitFor(/task working/);
    call.proc.kill('SIGINT');
    expect(await call.exited).toBe(130);
    const work = fx.work.get('cli-4')!;
    expect(call.stderr).toContain(`Interrupted; task ${work.taskId} was cancelled.`);
    await eventually('the task was cancelled', () => work.signal.aborted);
  });
});
