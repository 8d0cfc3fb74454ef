// The cross-entry identity checks (identity-flow.mjs) with every entry imported as ESM.
import * as omnimedia from 'omnimedia';
import * as aiSdk from 'omnimedia/ai-sdk';
import * as otel from 'omnimedia/otel';
import * as proxy from 'omnimedia/proxy';
import * as redis from 'omnimedia/redis';
import * as tasks from 'omnimedia/tasks';
import { checkIdentity } from './identity-flow.mjs';

const baseURL = globalThis.process?.argv?.[2] ?? globalThis.process?.env?.OMNIMEDIA_BASE_URL;
console.log(await checkIdentity({ omnimedia, tasks, redis, otel, proxy, aiSdk }, baseURL, `node ${process.version} ${import.meta.url.endsWith('.browser.mjs') ? 'browser-condition bundle' : 'esm'}`));
