/**
 * The interactive `tessera call`, driven through a pseudo-terminal the way a
 * person uses it: the questions it shows, the keys typed in answer, and what
 * it prints at the end. The servers are real child processes: the example
 * server (`npm start`'s program), `tessera serve` of the CLI demo module, and
 * the official TypeScript SDK v2 server over stdio.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compiledFixture, stopAll } from '../helpers/child-processes.js';
import { KEY, startExampleServer, startServe, TerminalSession, type Background } from '../helpers/cli.js';

let example: { url: string; server: Background };
let demo: { url: string; server: Background };

beforeAll(async () => {
  [example, demo] = await Promise.all([startExampleServer(), startServe([compiledFixture('cli-demo-server')])]);
});

afterAll(() => {
  example?.server.stop();
  demo?.server.stop();
  stopAll();
});

describe('the deploy confirmation of the example server', () => {
  it('is what the example server tells a new user to try, and how to reach it with the Inspector', async () => {
    const printed = await example.server.waitFor(/npx tessera call (\S+) deploy service=api env=prod\n/);
    expect(printed[1]).toBe(example.url);
    expect(example.server.stdout).toContain(`npx @modelcontextprotocol/inspector --transport http --server-url ${example.url}`);
  });

  it('is asked in the terminal, answered by typing, and the deployment is reported', async () => {
    // Exactly the command the example server prints (without "npx").
    const [, printed] = await example.server.waitFor(/npx tessera (call \S+ deploy .*)\n/);
    const session = new TerminalSession(printed!.split(' '));
    try {
      await session.waitFor('Deploy api to prod?');
      await session.waitFor('Accept and fill in the form');
      session.type(KEY.enter); // accept (the first choice)
      await session.waitFor('Approve the deployment');
      session.type(`y${KEY.enter}`);
      expect(await session.exited).toBe(0);
      const transcript = session.transcript;
      expect(transcript).toContain('tessera-examples asks: Deploy api to prod? [confirm]');
      expect(transcript).toContain('Your answer Accept and fill in the form');
      expect(transcript).toMatch(/approve — Approve the deployment \[y\/n\] Yes/);
      expect(transcript).toMatch(/Deployed api to prod \(deployment api-prod-\d+\)\./);
    } finally {
      session.stop();
    }
  });

  it('can be declined, and the tool says so', async () => {
    const session = new TerminalSession(['call', example.url, 'deploy', 'service=web', 'env=staging']);
    try {
      await session.waitFor('Deploy web to staging?');
      await session.waitFor('Cancel');
      session.type(KEY.down + KEY.enter); // decline
      expect(await session.exited).toBe(0);
      expect(session.transcript).toContain('Your answer Decline');
      expect(session.transcript).toContain('Deployment cancelled.');
      expect(session.transcript).not.toContain('Approve the deployment');
    } finally {
      session.stop();
    }
  });

  it('refuses an answer that is not yes or no, and asks again', async () => {
    const session = new TerminalSession(['call', example.url, 'deploy', 'service=api', 'env=prod']);
    try {
      await session.waitFor('Accept and fill in the form');
      session.type(KEY.enter);
      await session.waitFor('Approve the deployment');
      session.type(`maybe${KEY.enter}`);
      await session.waitFor('Answer y (yes) or n (no)');
      session.type(`${KEY.clearLine}n${KEY.enter}`);
      expect(await session.exited).toBe(0);
      expect(session.transcript).toContain('Deployment cancelled.');
    } finally {
      session.stop();
    }
  });
});

describe('a form with every kind of field (tessera serve of the demo module)', () => {
  it('asks field by field, checks each answer, and sends what was typed', async () => {
    const session = new TerminalSession(['call', demo.url, 'survey']);
    try {
      await session.waitFor('A few questions, please [survey]');
      await session.waitFor('Cancel');
      session.type(KEY.enter);

      await session.waitFor('Email (email) [email]');
      session.type(`nope${KEY.enter}`);
      await session.waitFor('Enter an email address, like ada@example.com');
      session.type(`${KEY.clearLine}ada@example.com${KEY.enter}`);

      await session.waitFor('nickname — What friends call you');
      await session.waitFor('(Ada)'); // the default, taken with Enter
      session.type(KEY.enter);

      await session.waitFor('birthday [date, YYYY-MM-DD] optional');
      session.type(`2026-02-30${KEY.enter}`);
      await session.waitFor('Enter a date as YYYY-MM-DD');
      session.type(`${KEY.clearLine}2026-02-28${KEY.enter}`);

      await session.waitFor('homepage [URI] optional');
      session.type(KEY.enter); // left out
      await session.waitFor('meeting [date and time');
      session.type(`2026-07-28T09:30:00Z${KEY.enter}`);

      await session.waitFor('Seats (seats) [an integer from 1 to 4]');
      session.type(`9${KEY.enter}`);
      await session.waitFor('Enter an integer from 1 to 4');
      session.type(`${KEY.clearLine}2${KEY.enter}`);

      await session.waitFor('budget [a number of at least 0] optional');
      session.type(`12.5${KEY.enter}`);
      await session.waitFor('newsletter [y/n] optional (no)');
      session.type(KEY.enter); // the default: no

      await session.waitFor('? size');
      await session.waitFor('navigate'); // the key help under a list: the whole list is drawn
      session.type(KEY.down + KEY.enter); // m
      await session.waitFor('Colour (colour)');
      await session.waitFor('navigate');
      session.type(KEY.down + KEY.enter); // Green

      await session.waitFor('toppings [space to pick, enter to finish]');
      await session.waitFor('navigate');
      session.type(KEY.enter); // nothing picked: at least one is required
      await session.waitFor('Choose at least 1');
      session.type(KEY.space + KEY.enter); // cheese

      await session.waitFor('days [space to pick, enter to finish] optional');
      await session.waitFor('navigate');
      session.type(KEY.down + KEY.space + KEY.enter); // Tuesday

      expect(await session.exited).toBe(0);
      const transcript = session.transcript;
      expect(transcript).toContain('Thanks!');
      const json = transcript.slice(transcript.indexOf('{', transcript.indexOf('structured content:')));
      expect(JSON.parse(json.slice(0, json.lastIndexOf('}') + 1))).toEqual({
        email: 'ada@example.com',
        nickname: 'Ada',
        birthday: '2026-02-28',
        meeting: '2026-07-28T09:30:00Z',
        seats: 2,
        budget: 12.5,
        newsletter: false,
        size: 'm',
        colour: 'g',
        toppings: ['cheese'],
        days: ['tue'],
      });
    } finally {
      session.stop();
    }
  });

  it('shows progress as a bar while the tool works', async () => {
    const session = new TerminalSession(['call', demo.url, 'count_up', 'steps=3']);
    try {
      expect(await session.exited).toBe(0);
      expect(session.transcript).toMatch(/33% step 1/);
      expect(session.transcript).toContain('Counted to 3.');
    } finally {
      session.stop();
    }
  });
});

describe('URL and sampling questions of the example server', () => {
  it('shows the full URL with its domain and waits for the person', async () => {
    const session = new TerminalSession(['call', example.url, 'connect_calendar']);
    try {
      await session.waitFor('Sign in to Example Calendar [sign_in_1]');
      // The domain comes first, on its own line: nothing in the URL after it can hide it.
      await session.waitFor('Domain: 127.0.0.1');
      await session.waitFor('Open this URL in your browser: http://127.0.0.1:');
      await session.waitFor('/sign-in?flow=');
      await session.waitFor('Nothing is opened for you');
      await session.waitFor('Cancel');
      session.type(KEY.down + KEY.enter); // decline
      expect(await session.exited).toBe(0);
      expect(session.transcript).toContain('Sign-in cancelled.');
    } finally {
      session.stop();
    }
  });

  it('shows the messages of a sampling request and takes the typed answer', async () => {
    const session = new TerminalSession(['call', example.url, 'summarize', 'text=Servers can ask before they act.']);
    try {
      await session.waitFor('Answer as the model (sampling) [summary]');
      await session.waitFor('user: Summarize in one sentence:');
      await session.waitFor('Servers can ask before they act.');
      await session.waitFor('up to 200 tokens');
      await session.waitFor('The answer');
      session.type(`Servers ask first.${KEY.enter}`);
      expect(await session.exited).toBe(0);
      expect(session.transcript.trimEnd().split('\n').at(-1)?.trim()).toBe('Servers ask first.');
    } finally {
      session.stop();
    }
  });
});

describe('the official TypeScript SDK v2 server, spawned over stdio', () => {
  it('asks its two questions in the terminal', async () => {
    const session = new TerminalSession(['call', 'profile', 'greeting=Hello', '--', process.execPath, compiledFixture('official-sdk-server'), '--stdio']);
    try {
      await session.waitFor('What is your name?');
      await session.waitFor('Cancel');
      session.type(KEY.enter);
      await session.waitFor('? name');
      session.type(`Ada${KEY.enter}`);
      await session.waitFor('What is your favourite color?');
      await session.waitFor('Cancel');
      session.type(KEY.enter);
      await session.waitFor('? color');
      session.type(`teal${KEY.enter}`);
      expect(await session.exited).toBe(0);
      expect(session.transcript).toContain('Hello Ada, your favourite color is teal.');
    } finally {
      session.stop();
    }
  });
});
