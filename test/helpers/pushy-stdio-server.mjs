// A 2026-07-28 stdio "server" that breaks the era's rule: before it answers a
// request it sends requests of its own (elicitation/create, roots/list, ping),
// which a 2026-07-28 server may not send. Everything it receives goes to
// stderr as "RECV <json>" lines, so a test can see whether the client answered.

import { createInterface } from 'node:readline';

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === '') return;
  process.stderr.write(`RECV ${line}\n`);
  let message;
  try {
    message = JSON.parse(line);
  } catch {
    return;
  }
  if (typeof message.method !== 'string' || message.id === undefined) return;
  send({ jsonrpc: '2.0', id: 'srv-1', method: 'elicitation/create', params: { mode: 'form', message: 'Pushed question', requestedSchema: { type: 'object', properties: {} } } });
  send({ jsonrpc: '2.0', id: 'srv-2', method: 'roots/list', params: {} });
  send({ jsonrpc: '2.0', id: 'srv-3', method: 'ping', params: {} });
  send({ jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', content: [{ type: 'text', text: 'answered anyway' }] } });
});
lines.on('close', () => process.exit(0));
