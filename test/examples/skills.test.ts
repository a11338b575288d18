/**
 * examples/skills.ts, built and run as a user runs it: it publishes
 * examples/skills/, and a client lists the skill, loads it and reads a file
 * it names, each verified against the entry (digest, size, frontmatter).
 */

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/client.js';
import { SkillsClient } from '../../src/skills.js';
import { compiledFile, ROOT, stopAll, stopPid, trackPid } from '../helpers/child-processes.js';

afterAll(stopAll);

describe('examples/skills.ts', () => {
  it('serves examples/skills: listed without reading, loaded and read verified', async () => {
    const file = compiledFile('examples/skills.js', [`${ROOT}examples/skills.ts`]);
    const child = spawn(process.execPath, [file], { cwd: ROOT, env: { ...process.env, PORT: '0', HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    trackPid(child.pid);
    const url = await new Promise<string>((resolve, reject) => {
      let output = '';
      const seen = (text: string): void => {
        output += text;
        const match = /^Skills \(incident-response\) on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/m.exec(output);
        if (match) resolve(match[1]!);
      };
      child.stdout!.setEncoding('utf8').on('data', seen);
      child.stderr!.setEncoding('utf8').on('data', seen);
      child.once('exit', (code) => reject(new Error(`the example exited (${code}) before listening: ${output}`)));
    });
    const client = new Client({ name: 'example-test', version: '1.0.0' }, { requestTimeoutMs: 10_000 });
    try {
      await client.connect(url);
      const skillsClient = new SkillsClient(client);
      const { skills } = await skillsClient.listAll();
      expect(skills.map((s) => [s.uri, s.frontmatter.description])).toEqual([['skill://incident-response/SKILL.md', 'Triage a production incident and write the first status update']]);
      const skill = await skillsClient.load(skills[0]!);
      expect(skill.skillFile.text).toBe(readFileSync(`${ROOT}examples/skills/incident-response/SKILL.md`, 'utf8'));
      expect(skill.files).toEqual(['SKILL.md', 'runbooks/database.md', 'status-update.md']);
      expect((await skill.read('runbooks/database.md')).text).toBe(readFileSync(`${ROOT}examples/skills/incident-response/runbooks/database.md`, 'utf8'));
    } finally {
      await client.close();
      stopPid(child.pid);
    }
  });
});
