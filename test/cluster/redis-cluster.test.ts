/**
 * The several-instances scenarios (./several-instances.ts) on a Redis
 * Cluster: three masters with a replica each (Debian's redis-server in cluster
 * mode, test/helpers/redis-cluster.ts), every instance started with
 * `--redis <a node> --redis-cluster`; the ledger, an external system, on a
 * redis-server of its own. Also a master killed (SIGKILL) mid-run: its replica
 * takes over, no single-use state is accepted twice, the task is not lost.
 *
 * Seen failing on the code before cluster support: every instance answers
 * the first request that needs Redis with 503 (MOVED and CROSSSLOT replies).
 */

import { startRedisCluster } from '../helpers/redis-cluster.js';
import { startRedis } from '../helpers/redis-server.js';
import { severalInstances } from './several-instances.js';

severalInstances('a Redis Cluster', async () => {
  const [cluster, ledger] = await Promise.all([startRedisCluster(), startRedis()]);
  return {
    serveArgs: ['--redis', cluster.url, '--redis-cluster'],
    ledgerUrl: ledger.url,
    cluster,
    stop: async () => {
      await Promise.all([cluster.stop(), ledger.stop()]);
    },
  };
});
