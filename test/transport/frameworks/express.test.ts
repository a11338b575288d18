/** The Express 5 adapter (`tessera-mcp/express`) on a real Express app: see test/helpers/framework-contract.ts. */

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { mcpExpress } from '../../../src/express.js';
import { frameworkContract } from '../../helpers/framework-contract.js';

frameworkContract('Express', async (server, options) => {
  const app = express();
  app.use(express.json());
  app.get('/health', (_req, res) => {
    res.send('ok');
  });
  const mcp = mcpExpress(server, options);
  app.use(mcp.metadata);
  app.use('/mcp', mcp);
  const listener = await new Promise<Server>((resolve, reject) => {
    const started: Server = app.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve(started)));
  });
  return {
    url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        listener.close(() => resolve());
        listener.closeAllConnections();
      }),
  };
});
