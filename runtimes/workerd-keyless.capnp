# The matrix's keyless worker (fixtures/runtime-worker-keyless.ts) on workerd: the same
# compatibility date, no flags. The address is overridden as for workerd.capnp.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "main")],
);

const worker :Workerd.Worker = (
  modules = [(name = "keyless.js", esModule = embed ".build/keyless.js")],
  compatibilityDate = "2024-09-23",
);
