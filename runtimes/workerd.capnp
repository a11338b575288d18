# The bundled worker on workerd, as Cloudflare runs it: an ES module worker at the
# compatibility date of the matrix, with no compatibility flags (no nodejs_compat).
# The test overrides the address (--socket-addr http=127.0.0.1:0) and reads the port workerd
# got from its control descriptor (--control-fd).
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [(name = "main", worker = .worker)],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "main")],
);

const worker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed ".build/worker.js")],
  compatibilityDate = "2024-09-23",
);
