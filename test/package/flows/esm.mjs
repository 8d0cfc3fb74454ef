// ESM consumer: Node (22, 24, 26), Deno and Bun run this file from a project that installed
// the packed tarball. The mock's URL comes from OMNIMEDIA_BASE_URL (or the first argument).
import * as omnimedia from 'omnimedia';
import * as schemas from 'omnimedia/schemas';
import * as proxyEntry from 'omnimedia/proxy';
import * as coordination from 'omnimedia/coordination';
import * as resources from 'omnimedia/resources';
import { runFlow, runProxyFlow } from './flow.mjs';

// The zod schemas subpath resolves and holds real schemas.
if (typeof schemas.TaskResultSchema?._zod !== 'object') throw new Error("omnimedia/schemas has no TaskResultSchema");
// The ports subpath holds the in-memory stores; the resources subpath is types only.
if (typeof coordination.MemoryDedupeStore !== 'function') throw new Error('omnimedia/coordination has no MemoryDedupeStore');
if (Object.keys(resources).length !== 0) throw new Error(`omnimedia/resources should hold types only: ${Object.keys(resources)}`);
// The mock service subpath: the server script imports it; its MSW adapter resolves as well.
if (typeof import.meta.resolve === 'function') import.meta.resolve('omnimedia/testing/msw');

const env = globalThis.process?.env ?? {};
const baseURL = globalThis.process?.argv?.[2] ?? env.OMNIMEDIA_BASE_URL;
const runtime = globalThis.Deno
  ? `deno ${Deno.version.deno}`
  : globalThis.Bun
    ? `bun ${Bun.version}`
    : `node ${process.version} esm`;
console.log(await runFlow(omnimedia, baseURL, runtime));
console.log(await runProxyFlow(omnimedia, proxyEntry, baseURL, runtime));
