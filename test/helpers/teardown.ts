// Teardown that runs all its steps: an afterAll whose setup failed half-way still stops what
// was started. (fleet-suite.ts's afterAll read `server.close` of a server never set, threw, and
// the redis-server after it was never stopped: `npm test` never exited.)

/**
 * Run every step in order, each even when one before it threw; then throw the first error (an
 * AggregateError of all of them when several did). A step whose thing was never set is the
 * step's own `?.`.
 *
 * @example
 * ```ts
 * afterAll(() => everyStep(() => server?.close(), () => redis.stop()));
 * ```
 */
export async function everyStep(...steps: (() => unknown)[]): Promise<void> {
  const errors: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      errors.push(error);
    }
  }
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new AggregateError(errors, `${errors.length} teardown steps failed`);
}
