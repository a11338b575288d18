/**
 * The example server (`npm start`): the deploy confirmation, the three-step
 * wizard, a URL-mode sign-in and a sampling tool, on http://127.0.0.1:3000/mcp.
 *
 *   PORT=3000 TESSERA_STATE_KEYS=$(npx tessera keygen) npm start
 *   npm start -- --trace          (or TESSERA_TRACE=1): every JSON-RPC message, → in and ← out
 *
 * Behind a proxy or load balancer, set PUBLIC_URL to the address users reach
 * (e.g. https://mcp.example.com): the sign-in links point there.
 */

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from 'tessera-mcp';
import { createNodeHandler, printWire } from 'tessera-mcp/node';
import { addDeployTool } from './deploy.js';
import { exitOnListenError, listenAddress } from './listen-address.js';
import { addSignInTool, MemorySignInStore, type SignInStore } from './sign-in.js';
import { addSummarizeTool } from './summarize.js';
import { addWizardTool } from './wizard.js';

export function buildExampleServer(signInPageUrl: () => string, signIns: SignInStore): McpServer {
  const server = new McpServer({ name: 'tessera-examples', version: '0.1.0' }, { instructions: 'Example tools that ask before they act.' });
  addDeployTool(server);
  addWizardTool(server);
  addSignInTool(server, { signInPageUrl, signIns });
  addSummarizeTool(server);
  return server;
}

async function main(): Promise<void> {
  const address = listenAddress();
  const { port, host } = address;
  // Known once listening (PORT=0 picks a free port); the sign-in tool only needs it when asked.
  let base = `http://${host}:${port}`;
  const publicBase = (): string => process.env.PUBLIC_URL?.replace(/\/+$/, '') ?? base;
  const signIns = new MemorySignInStore();
  // The wire trace prints arguments and answers: only when asked for.
  const tracing = process.argv.includes('--trace') || ['1', 'true'].includes(process.env.TESSERA_TRACE ?? '');
  const trace = tracing ? printWire((line) => console.log(line)) : undefined;
  const mcp = createNodeHandler(buildExampleServer(() => `${publicBase()}/sign-in`, signIns), { path: '/mcp', trace });

  const http = createServer((req, res) => {
    const url = new URL(req.url ?? '/', base);
    if (url.pathname === '/sign-in') {
      const flow = url.searchParams.get('flow') ?? '';
      void signIns.markDone(flow).then(() => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<h1>Signed in</h1><p>Go back to your MCP client and continue.</p>');
      });
      return;
    }
    mcp(req, res);
  });
  // A busy port (a second `npm start`) is one line on stderr and exit code 1, not a stack trace.
  http.once('error', (error) => exitOnListenError(error, address));
  http.listen(port, host, () => {
    base = `http://${host}:${(http.address() as AddressInfo).port}`;
    const endpoint = `${base}/mcp`;
    console.log(`Tessera example server on ${endpoint}`);
    console.log('Tools: deploy, create_project, connect_calendar, summarize');
    console.log('');
    // `npx tessera` finds the repository's own command only from its folder (elsewhere npx would look on the registry).
    console.log(`Try it from this folder (${process.cwd()}), in another terminal (it asks you to confirm the deployment):`);
    console.log(`  npx tessera call ${endpoint} deploy service=api env=prod`);
    console.log('More:');
    console.log(`  npx tessera list ${endpoint}`);
    console.log(`  npx tessera call ${endpoint} create_project name=demo`);
    console.log(`  npx tessera call ${endpoint} connect_calendar`);
    console.log(`  npx tessera call ${endpoint} summarize text="MCP lets servers ask before they act."`);
    console.log('Or with the official MCP Inspector (needs Node 22.19 or newer):');
    console.log(`  npx @modelcontextprotocol/inspector --transport http --server-url ${endpoint}`);
    console.log(`  (or run it without flags, and connect with transport "Streamable HTTP" and URL ${endpoint})`);
    console.log(tracing ? 'Wire trace on: → what clients send, ← what the server answers.' : 'See the JSON-RPC messages: npm start -- --trace');
  });
  const stop = (): void => void http.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (import.meta.url === `file://${process.argv[1]}`) void main();
