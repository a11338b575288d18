/** Ports on 127.0.0.1 for the processes tests start: a free one to give them, and whether one accepts yet. */

import { connect, createServer } from 'node:net';

/** A port nothing listens on right now (the OS picks it; the listener is closed before returning). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Whether something accepts connections on `port` now. */
export function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', () => resolve(false));
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
  });
}
