// omnimedia/otel as an ESM consumer (Node, Deno, Bun) installs it: with @opentelemetry/api and
// OpenTelemetry's SDK beside it.
import * as api from '@opentelemetry/api';
import * as sdk from '@opentelemetry/sdk-trace';
import { OmniMedia } from 'omnimedia';
import { openTelemetry } from 'omnimedia/otel';
import { TasksClient } from 'omnimedia/tasks';
import { runOtelFlow } from './otel-flow.mjs';

const env = globalThis.process?.env ?? {};
const baseURL = globalThis.process?.argv?.[2] ?? env.OMNIMEDIA_BASE_URL;
const runtime = globalThis.Deno ? `deno ${Deno.version.deno}` : globalThis.Bun ? `bun ${Bun.version}` : `node ${process.version} esm`;
console.log(await runOtelFlow({ OmniMedia, openTelemetry, api, sdk, baseURL, runtime, TasksClient }));
