/**
 * The Tessera server of the cluster bench (bench/cluster.ts): `echo` and the
 * one-question `confirm` of the shared catalogue, `confirm` with single-use
 * state, so every retry is one redemption in the store. The key ring comes
 * from TESSERA_STATE_KEYS (the load generator gives every instance the same).
 *
 *   node dist/bench/servers/tessera-cluster.js --port 0                 memory stores
 *   node dist/bench/servers/tessera-cluster.js --port 0 --redis <url>   every store on Redis
 */

import { parseArgs } from 'node:util';
import { ask, McpServer } from 'tessera-mcp';
import { serveHttp } from 'tessera-mcp/node';
import { redisStores } from 'tessera-mcp/redis';
import { CONFIRM_KEY, CONFIRM_TOOL, confirmedText, confirmMessage, declinedText, ECHO_TOOL, SERVER_VERSION } from '../tools/catalog.js';
import { ApproveAnswer, ConfirmInput, EchoInput } from '../tools/schemas.js';
import { announceListening } from './diagnostics.js';

const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, redis: { type: 'string' } } });

const stores = values.redis === undefined ? undefined : redisStores({ url: values.redis });
const server = new McpServer({ name: 'tessera-cluster-bench', version: SERVER_VERSION }, stores ? { stores } : {});

server.tool(ECHO_TOOL, { description: 'Returns its text', input: EchoInput }, ({ text }) => text);
server.tool(
  CONFIRM_TOOL,
  { description: 'Asks for approval once (single-use state), then answers', input: ConfirmInput, singleUseState: true },
  async ({ item }, ctx) => {
    const answer = await ctx.ask(ask.form(confirmMessage(item), ApproveAnswer, { key: CONFIRM_KEY }));
    return answer.action === 'accept' && answer.content.approve ? confirmedText(item) : declinedText(item);
  },
);

const running = await serveHttp(server, { port: Number(values.port) });
await announceListening(running.url, async () => {
  await running.close();
  await stores?.close();
});
