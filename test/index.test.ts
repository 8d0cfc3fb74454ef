// The root entry holds what a day's work names, and no more: at most 46 names (issue 26; it
// offered 114; the 46th, UnusableResultError, issue 30). The names are listed, so a new export is a deliberate choice of where it goes.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exportedNames } from './helpers/exported-names.ts';

const ROOT = [
  // The client and its options.
  'ClientOptions', 'OmniMedia', 'default',
  // The error classes, and the issue a ValidationError lists.
  'APIConnectionError', 'APIError', 'APITimeoutError', 'AuthenticationError', 'BadRequestError', 'CallbackError',
  'InsufficientBalanceError', 'InternalServerError', 'NotFoundError', 'OmniMediaError', 'PermissionDeniedError',
  'RateLimitError', 'ServiceUnavailableError', 'TaskFailedError', 'UnusableResultError', 'ValidationError', 'ValidationIssue', 'WaitTimeoutError',
  // The status predicates, parseCallback, fileFromPath.
  'isFailureStatus', 'isSuccessStatus', 'isTerminalStatus', 'parseCallback', 'fileFromPath',
  // Results.
  'ImageUpload', 'TaskPromise', 'TaskResult', 'TaskStatus', 'TaskSubmission', 'VideoUpload',
  // Parameters.
  'ImageEditParams', 'ImageGenerateParams', 'Uploadable', 'VideoEditParams', 'VideoGenerateParams',
  // Options, and the logger option's types.
  'CallbackHandlerOptions', 'DownloadOptions', 'LogLevel', 'Logger', 'ParseCallbackOptions', 'RequestOptions', 'RetrieveOptions',
  'UploadOptions', 'WaitOptions',
];

describe("the root entry 'omnimedia'", () => {
  it('exports at most 46 names, exactly these', () => {
    const names = exportedNames(fileURLToPath(new URL('../src/index.ts', import.meta.url)));
    expect(names).toEqual([...ROOT].sort());
    expect(names.length).toBeLessThanOrEqual(46);
  });
});
