#!/usr/bin/env bash
# Runs the official MCP conformance suite against Tessera's fixtures and fails on
# anything not listed in conformance/*-expected-failures.yml.
#   npm run conformance            # server and client suites, 2026-07-28 and 2025-11-25 requirements,
#                                  # and the extension scenarios no requirement set lists, at both wires
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/conformance"

# The CLI needs Node 22; the pinned `node` package provides it inside conformance/ only.
if [ ! -x node_modules/.bin/conformance ] || [ ! -x node_modules/.bin/node ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
node22="$root/conformance/node_modules/.bin/node"
cli="$root/conformance/node_modules/.bin/conformance"
"$node22" --version >/dev/null

[ -f "$root/dist/fixtures/conformance-server.js" ] || (cd "$root" && npm run -s build)

port="${CONFORMANCE_PORT:-$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')}"
node "$root/dist/fixtures/conformance-server.js" --port "$port" 2>"$root/conformance/fixture-server.log" &
fixture_pid=$!
trap 'kill "$fixture_pid" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do
  if node -e "require('net').connect($port,'127.0.0.1').on('connect',()=>process.exit(0)).on('error',()=>process.exit(1))"; then break; fi
  sleep 0.1
done

status=0
# One fixture, one URL, both eras.
for revision in 2026-07-28 2025-11-25; do
  echo "== conformance server --requirements $revision (fixture pid $fixture_pid, port $port)"
  "$node22" "$cli" server --url "http://127.0.0.1:$port/mcp" --requirements "$revision" \
    --expected-failures "$root/conformance/server-$revision-expected-failures.yml" || status=1
done

# Extension scenarios are on no revision's timeline, so --requirements leaves out those its frozen
# lists do not name (the Skills extension's, SEP-2640): each runs here at both wires.
server_extensions=(sep-2640-skills-directory sep-2640-skills-enumeration sep-2640-skills-manifest)
for revision in 2026-07-28 2025-11-25; do
  for scenario in "${server_extensions[@]}"; do
    echo "== conformance server --scenario $scenario --spec-version $revision"
    "$node22" "$cli" server --url "http://127.0.0.1:$port/mcp" --scenario "$scenario" --spec-version "$revision" --force \
      --expected-failures "$root/conformance/server-$revision-expected-failures.yml" || status=1
  done
done

# The same program as `npm run -s fixture:client -- <url>`, started without npm: the suite
# runs ~40 scenarios at once and 40 npm start-ups on 2 cores push some past the 30 s limit.
for revision in 2026-07-28 2025-11-25; do
  echo "== conformance client --requirements $revision"
  "$node22" "$cli" client --command "node $root/dist/fixtures/conformance-client.js" --requirements "$revision" \
    --expected-failures "$root/conformance/client-$revision-expected-failures.yml" || status=1
done

client_extensions=(sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size sep-2640-client-verify-frontmatter)
for revision in 2026-07-28 2025-11-25; do
  for scenario in "${client_extensions[@]}"; do
    echo "== conformance client --scenario $scenario --spec-version $revision"
    "$node22" "$cli" client --command "node $root/dist/fixtures/conformance-client.js" --scenario "$scenario" --spec-version "$revision" --force \
      --expected-failures "$root/conformance/client-$revision-expected-failures.yml" || status=1
  done
done

exit "$status"
