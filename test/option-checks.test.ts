// Every millisecond option of the SDK follows one rule, checked by one function
// (OptionProblems.ms): a whole number of ms from its least value (0 only where 0 means "at
// once") to 2^31-1, a timer's limit. A value outside is a ValidationError naming the option and
// the rule, thrown before anything is sent.
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../src/errors.ts';
import {
  checkRequestOptions,
  resolveClientOptions,
  resolveHandlerOptions,
  resolveRedisCoordinationOptions,
  resolveWaitOptions,
} from '../src/option-checks.ts';
import { resolveProxyOptions } from '../src/proxy/options.ts';

const env = () => undefined;
const client = { baseURL: 'https://api.example.test' };
const proxy = { authorize: () => ({ id: 'u' }), apiKey: 'sk', baseURL: 'https://api.example.test' };

/** Each millisecond option: its path, its least value, and a check of one value of it. */
const MS_OPTIONS: [string, number, (value: number) => unknown][] = [
  ['timeout', 1, (timeout) => resolveClientOptions({ ...client, timeout }, env, false)],
  ['uploadTimeout', 1, (uploadTimeout) => resolveClientOptions({ ...client, uploadTimeout }, env, false)],
  ['uploadCache.margin', 0, (margin) => resolveClientOptions({ ...client, uploadCache: { margin } }, env, false)],
  ['timeout', 1, (timeout) => checkRequestOptions({ timeout }, 'images.generate')],
  ['idleTimeout', 1, (idleTimeout) => checkRequestOptions({ idleTimeout } as never, 'files.download')],
  ['timeout', 1, (timeout) => resolveWaitOptions({ timeout }, 't1')],
  ['initialDelay', 0, (initialDelay) => resolveWaitOptions({ initialDelay }, 't1')],
  ['interval', 1, (interval) => resolveWaitOptions({ interval, maxInterval: 2 ** 31 - 1 }, 't1')],
  ['maxInterval', 1, (maxInterval) => resolveWaitOptions({ maxInterval, interval: 1 }, 't1')],
  ['readTimeout', 1, (readTimeout) => resolveHandlerOptions({ readTimeout })],
  ['leaseMs', 300, (leaseMs) => resolveRedisCoordinationOptions({ leaseMs })],
  ['commandTimeoutMs', 1, (commandTimeoutMs) => resolveRedisCoordinationOptions({ commandTimeoutMs })],
  ['timeout', 1, (timeout) => resolveProxyOptions({ ...proxy, timeout }, env)],
  ['idleTimeout', 1, (idleTimeout) => resolveProxyOptions({ ...proxy, idleTimeout }, env)],
  ['rateLimit.queries.windowMs', 1, (windowMs) => resolveProxyOptions({ ...proxy, rateLimit: { queries: { limit: 1, windowMs } } }, env)],
];

function problem(check: () => unknown): string | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ');
  }
}

describe('millisecond options: one rule', () => {
  it.each(MS_OPTIONS)('%s (least %i): whole ms from its least value to 2^31-1', (path, least, check) => {
    for (const good of [least, least + 1, 2 ** 31 - 1]) expect(problem(() => check(good)), `${path} = ${good}`).toBeUndefined();
    for (const bad of [least - 1, least + 0.5, 2 ** 31, Number.NaN, Number.POSITIVE_INFINITY])
      expect(problem(() => check(bad)), `${path} = ${bad}`).toContain(`${path}: must be a whole number of ms from ${least} to 2147483647 (got ${String(bad)})`);
  });
});

describe('the service address: refused values are never stringified', () => {
  // fast-check found it (seed -470787193): the settings were built from the refused value before
  // the problems were thrown, and its toString threw a raw Error.
  it('a baseURL or proxyURL whose toString throws is a ValidationError naming it', () => {
    const boom = () => {
      throw new Error('boom');
    };
    const hostile = { toString: boom, valueOf: boom };
    for (const options of [{ apiKey: 'sk-test-0123456789abcdef', baseURL: hostile }, { proxyURL: hostile }]) {
      const name = 'baseURL' in options ? 'baseURL' : 'proxyURL';
      expect(() => resolveClientOptions(options as never, env, false)).toThrow(ValidationError);
      expect(() => resolveClientOptions(options as never, env, false)).toThrow(new RegExp(`${name}: must be`));
    }
  });
});
