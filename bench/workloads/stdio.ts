/**
 * stdio round trips, each SDK with its own client: Tessera's Client spawning
 * the Tessera server, the official Client (pinned to 2026-07-28) spawning the
 * official server with only `echo` registered (the SDK at its best; Tessera
 * serves its whole catalogue). Servers run on the servers' core where pinning is on. A cell keeps `inFlight` echo calls outstanding for a fixed
 * time and checks every result.
 */

import { Client as OfficialClient } from '@modelcontextprotocol/client';
import { StdioClientTransport as OfficialStdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Client } from 'tessera-mcp/client';
import { StdioClientTransport } from 'tessera-mcp/stdio';
import type { CellResult } from '../harness/http-cell.js';
import { onServerCore } from '../harness/pinning.js';
import { stopPid, track, untrack } from '../harness/processes.js';
import { LatencyRecorder } from '../harness/stats.js';
import { ECHO_TEXT, ECHO_TOOL } from '../tools/catalog.js';
import { PROTOCOL_VERSION } from '../wire/requests.js';

export interface StdioSubject {
  /** An error message, or undefined when the echo came back right. */
  callEcho(): Promise<string | undefined>;
  close(): Promise<void>;
  /** The server child's process id. */
  readonly pid: number | null | undefined;
}

const CLIENT_INFO = { name: 'tessera-bench-stdio', version: '1.0.0' };

function checkEcho(result: { content?: unknown; isError?: unknown }): string | undefined {
  if (result.isError === true) return `tool error: ${JSON.stringify(result.content)}`;
  const first = Array.isArray(result.content) ? (result.content[0] as { type?: unknown; text?: unknown } | undefined) : undefined;
  return first?.type === 'text' && first.text === ECHO_TEXT ? undefined : `unexpected content ${JSON.stringify(result.content)}`;
}

/** `nodeFlags` go to the server child's node (e.g. --cpu-prof for bench/profile-stdio.ts). */
export async function connectTessera(serverScript: string, nodeFlags: string[] = []): Promise<StdioSubject> {
  const transport = new StdioClientTransport({ ...onServerCore(process.execPath, [...nodeFlags, serverScript, '--stdio']), stderr: 'inherit' });
  const pid = transport.process.pid;
  track(pid);
  const client = await new Client(CLIENT_INFO).connect(transport);
  return {
    pid,
    callEcho: async () => checkEcho(await client.callTool(ECHO_TOOL, { text: ECHO_TEXT })),
    close: async () => {
      await client.close();
      await stopPid(pid); // no-op when close() already ended it
      untrack(pid);
    },
  };
}

export async function connectOfficial(serverScript: string, nodeFlags: string[] = []): Promise<StdioSubject> {
  const client = new OfficialClient(CLIENT_INFO, { capabilities: {}, versionNegotiation: { mode: { pin: PROTOCOL_VERSION } } });
  // The SDK at its best: only the tool the cells call.
  const transport = new OfficialStdioClientTransport({ ...onServerCore(process.execPath, [...nodeFlags, serverScript, '--stdio', '--tools', 'echo']), stderr: 'inherit' });
  await client.connect(transport);
  const pid = transport.pid;
  track(pid);
  if (client.getProtocolEra() !== 'modern') throw new Error(`the official client did not speak ${PROTOCOL_VERSION}`);
  return {
    pid,
    callEcho: async () => checkEcho(await client.callTool({ name: ECHO_TOOL, arguments: { text: ECHO_TEXT } })),
    close: async () => {
      await client.close();
      await stopPid(pid);
      untrack(pid);
    },
  };
}

export async function runStdioCell(subject: StdioSubject, inFlight: number, seconds: number): Promise<CellResult> {
  const latency = new LatencyRecorder();
  const errorSamples = new Set<string>();
  let requests = 0;
  let units = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const sent = performance.now();
      let error: string | undefined;
      try {
        error = await subject.callEcho();
      } catch (thrown) {
        error = thrown instanceof Error ? thrown.message : String(thrown);
      }
      latency.record(performance.now() - sent);
      requests++;
      if (error === undefined) units++;
      else {
        errors++;
        if (errorSamples.size < 5) errorSamples.add(error);
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const p50 = latency.percentile(0.5);
  const p99 = latency.percentile(0.99);
  return {
    seconds: elapsed,
    requests,
    units,
    errors,
    errorSamples: [...errorSamples],
    requestsPerSecond: requests / elapsed,
    unitsPerSecond: units / elapsed,
    p50,
    p99,
    unitP50: p50,
    unitP99: p99,
  };
}
