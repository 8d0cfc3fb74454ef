#!/usr/bin/env bash
# Tarball tests: what users install, not our source tree. Packs the package, installs the
# tarball into throwaway consumer projects, starts the mock service from the installed
# `omnimedia/testing`, and runs a short real flow from every runtime we claim:
#   Node 22 / 24 / 26 (ESM import and CJS require), Node 22.0.0 (CJS require without
#   require(esm)), Node 20 (below engines: what the README says runs there), Deno, Bun,
#   headless Chromium (Debian's package, driven by playwright-core; the browser apps guide's
#   dev-server recipe too; a React 19 page with omnimedia/react reloaded and cut mid-run),
#   TypeScript consumers (strict; nodenext, bundler, and a browser project without
#   @types/node), omnimedia/ai-sdk with the real `ai` package (ESM, CJS, types), omnimedia/mcp
#   and `omnimedia mcp` with @modelcontextprotocol/sdk (ESM, CJS, the installed bin), `omnimedia
#   batch` (the installed bin), client.batch and omnimedia/bullmq with bullmq (ESM, CJS), and one
#   class per error whichever entry threw it (ESM, CJS); omnimedia/proxy where users deploy
#   it: the Next.js recipe built and served by Next.js (Node and edge runtimes) in Chromium,
#   direct and behind a reverse proxy (nextjs/run.mjs), and the Workers recipe and the
#   proxy's attacks in workerd through Miniflare (test/proxy/workerd.test.ts, attacks.test.ts),
#   and docs/proxy-deployment.md's Worker recipe under `wrangler dev` (wrangler-dev.ts);
#   and every ```ts runnable block of the README and the guides, saved and run as its page says
#   in a fresh `npm init -y` project with the page's install line (guide-blocks.ts).
# Usage: test/package/run.sh [--no-browser] [--no-deno-bun] [--no-node-matrix] [--no-nextjs] [--no-workerd] [--no-wrangler]
#   MOCK_URL=http://127.0.0.1:PORT  use a running mock instead of starting one.
# Everything it starts (mock server, browser) is stopped on exit; its temp dir is removed.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
NODE="$ROOT/node_modules/.bin/node"
PATH="$ROOT/node_modules/.bin:$PATH"

# The exact versions the README lists as tested. Bump them together with the README.
NODE_VERSIONS=(22.23.3 24.21.0 26.10.0)
NODE_OLDEST=22.0.0
# Below the engines range (>=22), yet the README says what runs there and what breaks (the AI
# SDK's webhook option: Promise.withResolvers). The flows below run on it to keep that true.
NODE_BELOW=20.20.2
DENO_VERSION=2.9.6
BUN_VERSION=1.4.5
TS_VERSION=$("$NODE" -p "require('$ROOT/node_modules/typescript/package.json').version")
# Consumers on the newest TypeScript (the native compiler) read the same .d.ts.
TS7_VERSION=7.0.2
# omnimedia/otel's optional peer and the SDK that records its spans, as the repo's devDependencies pin them.
OTEL_API_VERSION=$("$NODE" -p "require('$ROOT/node_modules/@opentelemetry/api/package.json').version")
OTEL_SDK_VERSION=$("$NODE" -p "require('$ROOT/node_modules/@opentelemetry/sdk-trace/package.json').version")

browser=1 denobun=1 matrix=1 nextjs=1 workerd=1 wrangler=1
for arg in "$@"; do
  case "$arg" in
    --no-browser) browser=0 ;;
    --no-deno-bun) denobun=0 ;;
    --no-node-matrix) matrix=0 ;;
    --no-nextjs) nextjs=0 ;;
    --no-workerd) workerd=0 ;;
    --no-wrangler) wrangler=0 ;;
    *) echo "unknown option $arg" >&2; exit 2 ;;
  esac
done

WORK="$(mktemp -d "${TMPDIR:-/tmp}/omnimedia-package.XXXXXX")"
MOCK_PID=""
GUIDES_PID=""
cleanup() {
  if [ -n "$MOCK_PID" ]; then kill "$MOCK_PID" 2>/dev/null || true; wait "$MOCK_PID" 2>/dev/null || true; fi
  # The guides' run is a process group of its own (setsid): its projects' mocks go with it.
  if [ -n "$GUIDES_PID" ]; then kill -TERM -- "-$GUIDES_PID" 2>/dev/null || true; wait "$GUIDES_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

# Each step prints the time the one before it took.
last=$SECONDS
step() { printf '\n--- %s (previous step: %ss)\n' "$*" "$((SECONDS - last))"; last=$SECONDS; }
passed=0
pass() { passed=$((passed + 1)); }

step "pack"
(cd "$ROOT" && npm pack --silent --pack-destination "$WORK" >/dev/null)
TARBALL="$(ls "$WORK"/omnimedia-*.tgz)"
echo "$(basename "$TARBALL"): $(tar -tzf "$TARBALL" | wc -l) files"

# The guides' runnable blocks need only the tarball, and mostly wait on their mocks' tasks
# (124 s of CI in line): they run beside every step below, their output printed at the end.
# Node $("$NODE" --version) is the `node` on the PATH: 22.18 or later runs the .mts blocks as the pages say.
echo "the guides' runnable blocks: each page's install line, mock and command, in fresh npm init -y projects (in the background)"
setsid "$NODE" "$HERE/guide-blocks.ts" "$TARBALL" "$WORK/guides" >"$WORK/guides.log" 2>&1 &
GUIDES_PID=$!

step "install the tarball into a consumer project"
APP="$WORK/app"
mkdir -p "$APP"
cp -r "$HERE/flows" "$HERE/types" "$HERE/browser" "$HERE/server.mjs" "$APP/"
cat >"$APP/package.json" <<JSON
{ "name": "omnimedia-consumer", "private": true, "type": "module",
  "allowScripts": { "deno": true, "bun": true } }
JSON
extra=()
[ "$denobun" = 1 ] && extra+=("deno@$DENO_VERSION" "bun@$BUN_VERSION")
# `ai` (and through it @ai-sdk/provider, our optional peer) for omnimedia/ai-sdk, at the major the repo tests.
AI_VERSION=$("$NODE" -p "require('$ROOT/node_modules/ai/package.json').version")
# @modelcontextprotocol/sdk for omnimedia/mcp and `omnimedia mcp`, as the repo pins it.
MCP_VERSION=$("$NODE" -p "require('$ROOT/node_modules/@modelcontextprotocol/sdk/package.json').version")
# bullmq for omnimedia/bullmq, as the repo pins it.
BULLMQ_VERSION=$("$NODE" -p "require('$ROOT/node_modules/bullmq/package.json').version")
# react and react-dom for omnimedia/react's Chromium page (an optional peer), as the repo pins them.
REACT_VERSION=$("$NODE" -p "require('$ROOT/node_modules/react/package.json').version")
REACT_DOM_VERSION=$("$NODE" -p "require('$ROOT/node_modules/react-dom/package.json').version")
(cd "$APP" && npm install --no-audit --no-fund --loglevel=error "$TARBALL" "typescript@$TS_VERSION" "typescript7@npm:typescript@$TS7_VERSION" \
  "@opentelemetry/api@$OTEL_API_VERSION" "@opentelemetry/sdk-trace@$OTEL_SDK_VERSION" "ai@$AI_VERSION" "@modelcontextprotocol/sdk@$MCP_VERSION" \
  "react@$REACT_VERSION" "react-dom@$REACT_DOM_VERSION" "bullmq@$BULLMQ_VERSION" "${extra[@]}" >/dev/null)

if [ -z "${MOCK_URL:-}" ]; then
  step "start the mock service from the installed omnimedia/testing"
  (cd "$APP" && exec "$NODE" server.mjs) >"$WORK/mock.log" 2>&1 &
  MOCK_PID=$!
  for _ in $(seq 1 100); do
    MOCK_URL="$(sed -n 's/^MOCK_URL=//p' "$WORK/mock.log")"
    [ -n "$MOCK_URL" ] && break
    kill -0 "$MOCK_PID" 2>/dev/null || { cat "$WORK/mock.log"; exit 1; }
    sleep 0.1
  done
  [ -n "$MOCK_URL" ] || { echo "mock service did not start"; cat "$WORK/mock.log"; exit 1; }
fi
echo "mock: $MOCK_URL"
export OMNIMEDIA_BASE_URL="$MOCK_URL"

step "Node $("$NODE" --version) (the repo's): ESM and CJS"
(cd "$APP" && "$NODE" flows/esm.mjs && "$NODE" flows/cjs.cjs && "$NODE" flows/lazy.mjs)
pass; pass; pass
step "Node $("$NODE" --version): omnimedia/otel, ESM and CJS"
(cd "$APP" && "$NODE" flows/otel.mjs && "$NODE" flows/otel.cjs)
pass; pass

step "one class per error across the entries (tasks, redis, otel, proxy, ai-sdk): ESM and CJS"
(cd "$APP" && "$NODE" flows/identity.mjs && "$NODE" flows/identity.cjs)
pass; pass
# The same, bundled as a page's bundler does (the `browser` condition: omnimedia and
# omnimedia/tasks from the browser build, the other entries from the ESM build), run by Node.
(cd "$APP" && "$ROOT/node_modules/.bin/esbuild" flows/identity.mjs --bundle --platform=browser --format=esm \
  --outfile="$APP/identity.browser.mjs" --log-level=warning && "$NODE" identity.browser.mjs)
pass

step "omnimedia/ai-sdk with ai@$AI_VERSION: ESM and CJS"
(cd "$APP" && "$NODE" flows/ai-sdk.mjs && "$NODE" flows/ai-sdk.cjs)
pass; pass

step "omnimedia/mcp and omnimedia mcp with @modelcontextprotocol/sdk@$MCP_VERSION: the installed bin over stdio, ESM and CJS"
(cd "$APP" && "$NODE" flows/mcp.mjs && "$NODE" flows/mcp.cjs)
pass; pass

step "omnimedia batch (the installed bin, resumed), client.batch and omnimedia/bullmq with bullmq@$BULLMQ_VERSION: ESM and CJS"
(cd "$APP" && "$NODE" flows/batch.mjs && "$NODE" flows/batch.cjs)
pass; pass

if [ "$matrix" = 1 ]; then
  for version in "${NODE_VERSIONS[@]}"; do
    step "Node $version: ESM and CJS"
    (cd "$APP" && npx --yes -p "node@$version" -c 'node flows/esm.mjs && node flows/cjs.cjs && node flows/otel.mjs')
    pass
  done
  step "Node $NODE_OLDEST: require() without require(esm)"
  (cd "$APP" && npx --yes -p "node@$NODE_OLDEST" -c 'node flows/cjs.cjs && node flows/identity.cjs')
  pass
  step "Node $NODE_BELOW (below engines; the README's Runtimes says what breaks): ESM, CJS, otel, ai-sdk"
  (cd "$APP" && npx --yes -p "node@$NODE_BELOW" -c 'node flows/esm.mjs && node flows/cjs.cjs && node flows/otel.mjs && node flows/ai-sdk.mjs')
  pass
fi

step "TypeScript $TS_VERSION consumers (strict)"
common='"strict": true, "exactOptionalPropertyTypes": true, "noUncheckedIndexedAccess": true, "noEmit": true, "skipLibCheck": false, "target": "ES2022"'
cat >"$APP/tsconfig.nodenext.json" <<JSON
{ "compilerOptions": { $common, "module": "nodenext", "moduleResolution": "nodenext", "lib": ["ES2023", "DOM"], "types": [] },
  "files": ["types/consumer.ts"] }
JSON
cat >"$APP/tsconfig.bundler.json" <<JSON
{ "compilerOptions": { $common, "module": "preserve", "moduleResolution": "bundler", "lib": ["ES2023", "DOM"], "types": [] },
  "files": ["types/consumer.ts"] }
JSON
# A browser project: DOM lib, no @types/node anywhere (none is installed in this project).
cat >"$APP/tsconfig.browser.json" <<JSON
{ "compilerOptions": { $common, "module": "esnext", "moduleResolution": "bundler", "lib": ["ES2023", "DOM", "DOM.Iterable"], "types": [] },
  "files": ["types/browser-consumer.ts"] }
JSON
[ -d "$APP/node_modules/@types/node" ] && { echo "@types/node leaked into the consumer"; exit 1; }
# omnimedia/ai-sdk with the AI SDK's own types, in both module systems' resolution. The AI SDK's
# declarations need @types/node and fail a library check under exactOptionalPropertyTypes, so
# these consumers skip the library check (as AI SDK apps do); their own code stays strict.
cat >"$APP/tsconfig.ai-sdk.json" <<JSON
{ "compilerOptions": { $common, "skipLibCheck": true, "module": "nodenext", "moduleResolution": "nodenext", "lib": ["ES2023", "DOM"], "types": [] },
  "files": ["types/ai-sdk-consumer.ts"] }
JSON
cat >"$APP/tsconfig.ai-sdk-bundler.json" <<JSON
{ "compilerOptions": { $common, "skipLibCheck": true, "module": "preserve", "moduleResolution": "bundler", "lib": ["ES2023", "DOM"], "types": [] },
  "files": ["types/ai-sdk-consumer.ts"] }
JSON
# A CJS consumer with nodenext resolves the require condition (index.d.cts).
mkdir -p "$APP/cts"
sed 's/^export async function/async function/' "$APP/types/consumer.ts" >"$APP/cts/consumer.cts"
echo 'void everything;' >>"$APP/cts/consumer.cts"
cat >"$APP/tsconfig.cjs.json" <<JSON
{ "compilerOptions": { $common, "module": "nodenext", "moduleResolution": "nodenext", "lib": ["ES2023", "DOM"], "types": [] },
  "files": ["cts/consumer.cts"] }
JSON
for config in nodenext bundler browser cjs ai-sdk ai-sdk-bundler; do
  (cd "$APP" && "$NODE" node_modules/typescript/bin/tsc -p "tsconfig.$config.json")
  echo "ok tsc $config"
  pass
  (cd "$APP" && "$NODE" node_modules/typescript7/bin/tsc -p "tsconfig.$config.json")
  echo "ok tsc $TS7_VERSION $config"
  pass
done

if [ "$denobun" = 1 ]; then
  step "Deno $DENO_VERSION"
  (cd "$APP" && node_modules/.bin/deno run --allow-env --allow-net --allow-read flows/esm.mjs &&
    node_modules/.bin/deno run --allow-env --allow-net --allow-read flows/otel.mjs)
  pass
  step "Bun $BUN_VERSION"
  (cd "$APP" && node_modules/.bin/bun flows/esm.mjs && node_modules/.bin/bun flows/otel.mjs)
  pass
fi

if [ "$browser" = 1 ]; then
  step "Chromium (headless, Debian's package)"
  (cd "$APP" && "$ROOT/node_modules/.bin/esbuild" browser/page.mjs --bundle --platform=browser --format=esm \
    --outfile="$WORK/page.js" --log-level=warning)
  progress=()
  # Upload progress is asserted once the SDK's UploadOptions offers onProgress.
  grep -q 'onProgress' <(cat "$APP"/node_modules/omnimedia/dist/*.d.ts | sed -n '/interface UploadOptions/,/^}/p') &&
    progress=(--expect-progress)
  "$NODE" "$HERE/browser/run.mjs" "$WORK/page.js" "$MOCK_URL" "${progress[@]}"
  pass
  step "Chromium: a page with only omnimedia/tasks"
  (cd "$APP" && "$ROOT/node_modules/.bin/esbuild" browser/tasks-page.mjs --bundle --platform=browser --format=esm \
    --outfile="$WORK/tasks-page.js" --log-level=warning)
  "$NODE" "$HERE/browser/run.mjs" "$WORK/tasks-page.js" "$MOCK_URL" --tasks
  pass
  step "Chromium: the whole client and the AI SDK provider behind omnimedia/proxy, the key on the server"
  # One esbuild file holding omnimedia and `ai` 7 (no --splitting, as wrangler builds a Worker).
  # It did not load while the client loaded zod with import(): esbuild 0.28 initialises lazily
  # what a dynamic import reaches, and `ai`'s static import through zod's other mini entry file
  # (zod/v4/mini, ours was zod/mini) never ran that init. Kept as one file so that it shows again.
  (cd "$APP" && "$ROOT/node_modules/.bin/esbuild" browser/proxy-page.mjs --bundle --platform=browser --format=esm \
    --outfile="$WORK/proxy-page.js" --log-level=warning)
  "$NODE" "$HERE/browser/proxy-run.mjs" "$APP" "$WORK/proxy-page.js"
  pass
  step "Chromium: a React $REACT_VERSION page with omnimedia/react: useTask through the proxy's event stream, a reload mid-run, a stream cut mid-run"
  (cd "$APP" && "$ROOT/node_modules/.bin/esbuild" browser/react-page.mjs --bundle --platform=browser --format=esm \
    --outfile="$WORK/react-page.js" --log-level=warning)
  "$NODE" "$HERE/browser/react-run.mjs" "$APP" "$WORK/react-page.js"
  pass
  step "Chromium: the dev-server recipe of docs/browser-apps.md (the page on one port, omnimedia/proxy on another)"
  (cd "$APP" && "$ROOT/node_modules/.bin/esbuild" browser/dev-server-page.mjs --bundle --platform=browser --format=esm \
    --outfile="$WORK/dev-server-page.js" --log-level=warning)
  (cd "$APP" && "$NODE" browser/dev-server-run.mjs "$WORK/dev-server-page.js" "$MOCK_URL" "$ROOT")
  pass
  step "Chromium: docs/browser-apps.md's page without a bundler (an import map to the browser build) and its server.mts"
  (cd "$APP" && "$NODE" browser/import-map-run.mjs "$ROOT" "$MOCK_URL")
  pass
  step "Chromium: a page tracing a wait with omnimedia/otel (the browser build)"
  (cd "$APP" && "$ROOT/node_modules/.bin/esbuild" browser/otel-page.mjs --bundle --platform=browser --format=esm \
    --outfile="$WORK/otel-page.js" --log-level=warning)
  "$NODE" "$HERE/browser/run.mjs" "$WORK/otel-page.js" "$MOCK_URL" --otel
  pass
fi

if [ "$workerd" = 1 ]; then
  step "Cloudflare workerd (Miniflare, the repo's devDependency): the Workers recipe and the proxy's attacks, the proxy from the tarball"
  # The Workers are bundled from the consumer project, so omnimedia/proxy is the installed tarball's.
  (cd "$ROOT" && OMNIMEDIA_WORKERD_FROM="$APP" OMNIMEDIA_PROXY_MODES=workerd "$NODE" node_modules/vitest/vitest.mjs run --project suite \
    test/proxy/workerd.test.ts test/proxy/attacks.test.ts)
  pass
fi

if [ "$wrangler" = 1 ]; then
  step "Cloudflare's wrangler dev (from npm): docs/proxy-deployment.md's Worker recipe as written, the page, the proxy to the mock, and the 500 without .dev.vars"
  # Here because only a user's own wrangler checks what the guide says of wrangler: its
  # wrangler.jsonc, `.dev.vars` and static assets (the workerd step above runs the Worker through
  # Miniflare, without wrangler). Its own project, mock and wrangler, all stopped when it ends (150 s at most).
  "$NODE" "$HERE/wrangler-dev.ts" "$TARBALL" "$WORK"
  pass
fi

if [ "$browser" = 1 ] && [ "$nextjs" = 1 ]; then
  step "Next.js recipe (examples/proxy-nextjs): next build without secrets, next start, Node and edge runtimes, Chromium direct and behind a reverse proxy"
  "$NODE" "$HERE/nextjs/run.mjs" "$ROOT" "$TARBALL" "$WORK"
  pass
fi

step "the guides' runnable blocks (started after the pack): their output"
guides=0; wait "$GUIDES_PID" || guides=$?
GUIDES_PID=""
cat "$WORK/guides.log"
[ "$guides" = 0 ] || { echo "the guides' runnable blocks: exit $guides"; exit 1; }
pass

step "done"
printf "\nruntimes and consumers took %ss\n" "$SECONDS"
printf '\n%s passed, 0 failed\n' "$passed"
