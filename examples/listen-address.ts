/**
 * Where the examples listen (`HOST`, `PORT`; 127.0.0.1 and 3000 by default),
 * and a one-line message instead of a stack trace when they cannot — a busy
 * port above all, which is what a second `npm start` runs into.
 */

export interface ListenAddress {
  host: string;
  port: number;
}

/** `HOST` and `PORT` from the environment; exits with a message when `PORT` is no port. */
export function listenAddress(env: NodeJS.ProcessEnv = process.env): ListenAddress {
  const host = env.HOST || '127.0.0.1';
  const port = Number(env.PORT || 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`PORT must be a port number (0 to 65535), not "${env.PORT}".`);
    process.exit(2);
  }
  return { host, port };
}

/** The endpoint URL for a listening address (IPv6 hosts in brackets). */
export function endpointUrl(host: string, port: number, path = '/mcp'): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}${path}`;
}

/** Says in one line why listening failed, and exits non-zero. */
export function exitOnListenError(error: NodeJS.ErrnoException, { host, port }: ListenAddress): never {
  if (error.code === 'EADDRINUSE') {
    console.error(`Port ${port} on ${host} is already in use (another server is running there): stop it, or pick another port, e.g. PORT=${port === 3000 ? 3001 : 3000}.`);
  } else if (error.code === 'EACCES') {
    console.error(`Not allowed to listen on port ${port} of ${host}: pick a port above 1023, e.g. PORT=3000.`);
  } else if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND') {
    console.error(`Cannot listen on ${host}: it is no address of this machine (set HOST, e.g. HOST=127.0.0.1).`);
  } else {
    console.error(`Cannot listen on ${host}:${port}: ${error.message}`);
  }
  process.exit(1);
}
