// The bundled worker on Bun.serve.
import worker from './.build/worker.js';

const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: worker.fetch });
console.log(`listening http://127.0.0.1:${server.port}/mcp`);
