/**
 * Run a write to shared state without waiting on it: its failure (thrown or rejected) goes to
 * `failed`, never to the caller. Shared state is a help, never a condition.
 */
export function settle(write: () => void | Promise<void> | undefined, failed: (error: unknown) => void = () => {}): void {
  try {
    const pending = write();
    if (pending) pending.catch(failed);
  } catch (error) {
    failed(error);
  }
}
