#!/usr/bin/env bash
# Runtimes CI: the packed tarball on Node 20/22/24/26 (+ 22.0.0 require), Deno, Bun, headless
# Chromium, strict TypeScript consumers, and omnimedia/proxy in a real Next.js app (Node and
# edge runtimes, `next` and React from npm at the versions examples/proxy-nextjs pins) and in
# Cloudflare's workerd (Miniflare) and the Workers guide under `wrangler dev` (wrangler from npm)
# (test/package/run.sh). Needs `npm run build` first.
# Chromium comes from Debian's package (a browser download would fail here); playwright-core
# (a devDependency) drives it. Deno and Bun come from their npm packages, installed into the
# throwaway consumer project. Everything started is stopped by run.sh's exit trap.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
  echo "installing Debian's chromium"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
chromium --version 2>/dev/null | head -1 || true

bash test/package/run.sh "$@"
