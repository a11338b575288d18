// The bundled worker on Deno.serve.
import worker from './.build/worker.js';

Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(`listening http://127.0.0.1:${port}/mcp`) }, worker.fetch);
