#!/usr/bin/env bash
# The MCP Inspector's CLI (@modelcontextprotocol/inspector-cli, a devDependency) against the
# built `omnimedia mcp` over stdio: it lists the six tools and calls generate_image, which the
# mock service (the built `omnimedia mock`, on a free port) completes. Needs `npm run build`.
# Everything started is stopped on exit.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
NODE="$ROOT/node_modules/.bin/node"
INSPECTOR="$ROOT/node_modules/.bin/mcp-inspector-cli"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/omnimedia-inspector.XXXXXX")"
MOCK_PID=""
cleanup() {
  if [ -n "$MOCK_PID" ]; then kill "$MOCK_PID" 2>/dev/null || true; wait "$MOCK_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

"$NODE" "$ROOT/dist/cli.js" mock --json >"$WORK/mock.json" 2>"$WORK/mock.log" &
MOCK_PID=$!
for _ in $(seq 1 100); do
  BASE_URL="$("$NODE" -e 'try { console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).base_url) } catch {}' "$WORK/mock.json")"
  [ -n "$BASE_URL" ] && break
  kill -0 "$MOCK_PID" 2>/dev/null || { cat "$WORK/mock.log"; exit 1; }
  sleep 0.1
done
[ -n "$BASE_URL" ] || { echo "mock service did not start"; exit 1; }

# inspector-cli 1.0.3 finds its own package.json as ../package.json of the working directory
# (else ../../package.json of its module): run it from dist/, whose parent holds one.
inspect() {
  (cd "$ROOT/dist" && PATH="$ROOT/node_modules/.bin:$PATH" "$INSPECTOR" --cli \
    -e OMNIMEDIA_BASE_URL="$BASE_URL" -e OMNIMEDIA_API_KEY=sk-inspector \
    "$NODE" cli.js mcp --allow-dir "$WORK" "$@" 2>"$WORK/inspector.log") || { cat "$WORK/inspector.log"; return 1; }
}

inspect --method tools/list >"$WORK/tools.json"
"$NODE" -e '
  const { tools } = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const names = tools.map((t) => t.name).join(",");
  if (names !== "generate_image,edit_image,generate_video,edit_video,upload_file,get_task") throw new Error(`tools: ${names}`);
  const video = tools.find((t) => t.name === "generate_video");
  if (video.execution?.taskSupport !== "optional" || video.inputSchema.properties.images.maxItems !== 3) throw new Error("generate_video is not as listed");
  console.log(`ok tools/list: ${names}`);
' "$WORK/tools.json"

inspect --method tools/call --tool-name generate_image --tool-arg model=omni-image 'prompt=a lighthouse at dawn' >"$WORK/call.json"
"$NODE" -e '
  const result = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  const task = result.structuredContent;
  if (result.isError || task?.status !== "completed" || !result.content.some((c) => c.type === "image")) throw new Error(JSON.stringify(result).slice(0, 500));
  console.log(`ok tools/call generate_image: ${task.task_id} ${task.status}, ${result.content.map((c) => c.type).join(", ")}`);
' "$WORK/call.json"
