/**
 * One measurement cell over HTTP: autocannon keeps `connections` keep-alive
 * connections busy with a flow for a fixed time (or a fixed number of
 * requests), each connection walking the flow's chain of requests. Every
 * response is checked; a failed check counts as an error, not as throughput,
 * and the flow starts over.
 */

import autocannon from 'autocannon';
import { ownCpuSeconds } from './cpu.js';
import type { FlowContext, HttpFlow } from '../workloads/http-flows.js';
import { LatencyRecorder } from './stats.js';

export interface HttpCellOptions {
  url: string;
  flow: HttpFlow;
  connections: number;
  /** Run for this many seconds… */
  seconds?: number;
  /** …or until this many requests were answered. */
  amount?: number;
  /** With `amount`: stop after this many seconds even if fewer requests were answered. */
  maxSeconds?: number;
  /** Called once halfway through a timed cell (e.g. to sample the server's memory under load). */
  midway?: () => Promise<void>;
  /** Headers sent with every request besides the flow's own (e.g. Authorization). */
  headers?: Record<string, string>;
}

export interface CellResult {
  seconds: number;
  /** Responses received (right or wrong). */
  requests: number;
  /** Flows completed with every response right. */
  units: number;
  errors: number;
  /** A few distinct error messages, for diagnosis. */
  errorSamples: string[];
  requestsPerSecond: number;
  unitsPerSecond: number;
  /** Per-request latency, ms. */
  p50: number;
  p99: number;
  /** Per-flow latency (first request built → last response checked), ms. */
  unitP50: number;
  unitP99: number;
  /** CPU seconds the load generator used over the cell (this process for autocannon). */
  generatorCpuSeconds?: number;
}

const MAX_ERROR_SAMPLES = 5;

export async function runHttpCell(options: HttpCellOptions): Promise<CellResult> {
  const url = new URL(options.url);
  const steps = options.flow.steps;
  const requestLatency = new LatencyRecorder();
  const unitLatency = new LatencyRecorder();
  const errorSamples = new Set<string>();
  let nextId = 1;
  let responses = 0;
  let units = 0;
  let errors = 0;

  const fail = (message: string): void => {
    errors++;
    if (errorSamples.size < MAX_ERROR_SAMPLES) errorSamples.add(message);
  };

  const requests: autocannon.Request[] = steps.map((step, index) => ({
    method: step.method ?? 'POST',
    path: url.pathname,
    headers: options.headers ? { ...step.headers, ...options.headers } : step.headers,
    setupRequest(request, context) {
      const flow = context as FlowContext;
      const id = nextId++;
      const body = step.body(id, flow);
      // No body: the previous step failed; autocannon then starts the chain over with a fresh context.
      if (body === undefined) return undefined as unknown as autocannon.Request;
      flow.id = id;
      if (index === 0) flow.startedAt = performance.now();
      request.body = body;
      if (step.headersFor) request.headers = options.headers ? { ...step.headersFor(flow), ...options.headers } : step.headersFor(flow);
      return request;
    },
    onResponse(status, body, context, headers) {
      responses++;
      const flow = context as FlowContext;
      const error = step.check(status, body, flow, headers as Record<string, string | string[]> | undefined);
      if (error !== undefined) {
        fail(error);
        flow.requestState = undefined;
        flow.failed = true;
        return;
      }
      // A clean-up step (a session's DELETE) may still run after a failed one: the unit does not count then.
      if (!flow.failed && (index === steps.length - 1 || flow.done)) {
        units++;
        unitLatency.record(performance.now() - (flow.startedAt ?? Number.NaN));
      }
    },
  }));

  const started = performance.now();
  const cpuBefore = ownCpuSeconds();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        connections: options.connections,
        pipelining: 1,
        timeout: 10,
        // autocannon checks for the end of a cell only when it samples; at the default 1 s a 3 s cell could run 4 s.
        sampleInt: 100,
        ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.seconds ?? 1 }),
        requests,
      },
      (error, done) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve(done)),
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => requestLatency.record(responseTime));
    if (options.amount !== undefined && options.maxSeconds !== undefined) {
      const cap = setTimeout(() => instance.stop(), options.maxSeconds * 1000);
      instance.once('done', () => clearTimeout(cap));
    }
    if (options.midway && options.seconds !== undefined) {
      const probe = options.midway;
      setTimeout(() => void probe().catch((error: unknown) => fail(`midway probe: ${String(error)}`)), options.seconds * 500);
    }
  });
  const seconds = (performance.now() - started) / 1000;
  const generatorCpuSeconds = ownCpuSeconds() - cpuBefore;

  // Connection errors and timeouts never reach onResponse.
  errors += result.errors;
  if (result.errors > 0 && errorSamples.size < MAX_ERROR_SAMPLES) errorSamples.add(`${result.errors} connection errors (${result.timeouts} timeouts)`);

  return {
    seconds,
    requests: responses,
    units,
    errors,
    errorSamples: [...errorSamples],
    requestsPerSecond: responses / seconds,
    unitsPerSecond: units / seconds,
    p50: requestLatency.percentile(0.5),
    p99: requestLatency.percentile(0.99),
    unitP50: unitLatency.percentile(0.5),
    unitP99: unitLatency.percentile(0.99),
    generatorCpuSeconds,
  };
}
