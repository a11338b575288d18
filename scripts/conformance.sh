#!/usr/bin/env bash
# Runs the official MCP conformance suite against Tessera's fixtures and fails on
# anything not listed in conformance/*-expected-failures.yml.
#   npm run conformance            # server and client suites, 2026-07-28 and 2025-11-25 requirements,
#                                  # and the extension scenarios no requirement set lists, at both wires
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/conformance"

# The CLI needs Node 22; the pinned `node` package provides it inside conformance/ only.
# Installed again when the pin moved since the last install (a pull that raised it).
pinned="$(node -p "require('./package.json').dependencies['@modelcontextprotocol/conformance']")"
installed="$(node -p "try { require('./node_modules/@modelcontextprotocol/conformance/package.json').version } catch { '' }")"
if [ ! -x node_modules/.bin/conformance ] || [ ! -x node_modules/.bin/node ] || [ "$installed" != "$pinned" ]; then
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
# One leg (server or client) against the fixture at one revision: the arguments after the revision
# pick the scenarios; anything not in that leg's expected-failures file fails the run.
conformance() {
  local leg=$1 revision=$2
  shift 2
  local target=(--url "http://127.0.0.1:$port/mcp")
  # The same program as `npm run -s fixture:client -- <url>`, started without npm: the suite
  # runs ~40 scenarios at once and 40 npm start-ups on 2 cores push some past the 30 s limit.
  [ "$leg" = client ] && target=(--command "node $root/dist/fixtures/conformance-client.js")
  echo "== conformance $leg $*"
  "$node22" "$cli" "$leg" "${target[@]}" "$@" --expected-failures "$root/conformance/$leg-$revision-expected-failures.yml" || status=1
}

# Extension scenarios are on no revision's timeline, so --requirements leaves out those its frozen
# lists do not name (the Skills extension's, SEP-2640): each runs by itself at both wires.
server_extensions=(sep-2640-skills-directory sep-2640-skills-enumeration sep-2640-skills-manifest)
client_extensions=(sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size sep-2640-client-verify-frontmatter)

# One fixture, one URL, both eras.
echo "== fixture pid $fixture_pid, port $port"
for leg in server client; do
  extensions_var="${leg}_extensions[@]"
  for revision in 2026-07-28 2025-11-25; do
    conformance "$leg" "$revision" --requirements "$revision"
    for scenario in "${!extensions_var}"; do
      conformance "$leg" "$revision" --scenario "$scenario" --spec-version "$revision" --force
    done
  done
done

exit "$status"
