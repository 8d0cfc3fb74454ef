/**
 * What the image and video models share about an AI SDK call: the options the service has no
 * field for (as AI SDK warnings, never silent drops), and `providerOptions.omnimedia`.
 */
import type { SharedV4ProviderOptions, SharedV4Warning } from '@ai-sdk/provider';
import { OmniMediaError, ValidationError, type ValidationIssue } from 'omnimedia';

/** The headers the AI SDK adds to every call by itself: not the app's, so no warning for them. */
const AI_SDK_HEADERS = new Set(['user-agent', 'idempotency-key']);

/** An `unsupported` warning for each of `features` the call set, with why. */
export function unsupportedWarnings(options: object, features: Record<string, string>): SharedV4Warning[] {
  const given = options as Record<string, unknown>;
  return Object.entries(features)
    .filter(([feature]) => given[feature] !== undefined)
    .map(([feature, details]) => ({ type: 'unsupported', feature, details }));
}

/**
 * Per-call headers are not sent: the client's requests carry its own headers and
 * `defaultHeaders` (set them in `createOmniMedia`). A warning when the app passed any.
 */
export function headersWarnings(headers: Record<string, string | undefined> | undefined): SharedV4Warning[] {
  const own = Object.entries(headers ?? {}).filter(([name, value]) => value !== undefined && !AI_SDK_HEADERS.has(name.toLowerCase()));
  if (own.length === 0) return [];
  return [
    {
      type: 'unsupported',
      feature: 'headers',
      details: `per-call headers are not sent (${own.map(([name]) => name).join(', ')}): set defaultHeaders in createOmniMedia`,
    },
  ];
}

/**
 * `providerOptions.omnimedia`: request fields passed as they are (the AI SDK's convention),
 * then checked by the client with every other field.
 */
export function providerParams(providerOptions: SharedV4ProviderOptions | undefined): Record<string, unknown> {
  const own = providerOptions?.omnimedia;
  if (own === undefined) return {};
  if (own === null || typeof own !== 'object' || Array.isArray(own))
    throw new ValidationError([{ path: 'providerOptions.omnimedia', message: 'must be an object of request fields' }], 'omnimedia call');
  return { ...own };
}

/** Throws the issues found, if any, as one `ValidationError` (nothing has been sent). */
export function throwIssues(issues: readonly ValidationIssue[], context: string): void {
  if (issues.length > 0) throw new ValidationError(issues, context);
}

/**
 * Read the AI SDK's call options with `read`: a value of a kind the AI SDK never passes (an app
 * that forced one through, a getter that throws) is our `ValidationError`, nothing sent, never a
 * raw error from the adapter.
 */
export function readCall<T>(read: () => T, context: string): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof OmniMediaError) throw error;
    let why: string;
    try {
      why = String((error as Error | undefined)?.message ?? error);
    } catch {
      why = 'unreadable';
    }
    throw new ValidationError([{ path: '', message: `a call option cannot be read (${why})` }], context);
  }
}
