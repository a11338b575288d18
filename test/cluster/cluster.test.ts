/**
 * The several-instances scenarios (./several-instances.ts) on one Redis: a
 * redis-server on a free port, stopped by PID; also an outage of it.
 */

import { startRedis } from '../helpers/redis-server.js';
import { severalInstances } from './several-instances.js';

severalInstances('one Redis', async () => {
  const redis = await startRedis();
  return { serveArgs: ['--redis', redis.url], ledgerUrl: redis.url, redis, stop: () => redis.stop() };
});
