import type { Attributes, Counter, Histogram, Meter } from '@opentelemetry/api';

/** The instruments the SDK records to (semantic-convention names where there is one). */
export interface Instruments {
  /** Seconds per HTTP request attempt (the stable HTTP semantic conventions' metric). */
  requestDuration: Histogram<Attributes>;
  /** Seconds from the start of a wait to its end. */
  waitDuration: Histogram<Attributes>;
  /** Task queries a finished wait sent. */
  waitPolls: Histogram<Attributes>;
  /** Callback deliveries a handler took, by outcome. */
  callbacks: Counter<Attributes>;
}

// The buckets the HTTP conventions recommend for request durations, in seconds.
const REQUEST_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
// Waits last from seconds (an image) to half an hour (a long video).
const WAIT_BUCKETS = [1, 2, 5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300, 600, 1200, 1800];
// Queries per wait: a few for a short task, tens for a long one (see the cadence).
const POLL_BUCKETS = [0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 50, 100];

/** Create the SDK's instruments on `meter`. */
export function createInstruments(meter: Meter): Instruments {
  return {
    requestDuration: meter.createHistogram('http.client.request.duration', {
      unit: 's',
      description: 'Duration of HTTP client requests.',
      advice: { explicitBucketBoundaries: REQUEST_BUCKETS },
    }),
    waitDuration: meter.createHistogram('omnimedia.wait.duration', {
      unit: 's',
      description: 'Time from the start of a wait for a task to its end.',
      advice: { explicitBucketBoundaries: WAIT_BUCKETS },
    }),
    waitPolls: meter.createHistogram('omnimedia.wait.polls', {
      unit: '{query}',
      description: 'Task queries sent by a finished wait.',
      advice: { explicitBucketBoundaries: POLL_BUCKETS },
    }),
    callbacks: meter.createCounter('omnimedia.callbacks', {
      unit: '{delivery}',
      description: 'Callback deliveries taken by a handler, by outcome.',
    }),
  };
}
