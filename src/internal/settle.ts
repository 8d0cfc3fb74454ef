/**
 * Run a write nobody waits for (shared state, a cache): what it throws or rejects with goes to
 * `failed`, never up. Shared state is a help, never a condition.
 */
export function settle(write: () => unknown, failed: (error: unknown) => void = () => {}): void {
  try {
    Promise.resolve(write()).catch(failed);
  } catch (error) {
    failed(error);
  }
}
