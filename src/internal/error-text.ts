/** What went wrong, in words: an error's message, else the thrown value as a string. */
export function errorText(error: unknown): string {
  return String((error as Error | undefined)?.message ?? error);
}
