import type { CommandSpec, ParsedArgs } from '../args.ts';
import type { Context } from '../context.ts';

/** One `omnimedia <group> <action>`: its flags and help, and what it does. */
export interface Command {
  spec: CommandSpec;
  /** SDK field → flag, where they differ (`input_video` → `--video`). */
  flags?: Record<string, string>;
  run(ctx: Context, args: ParsedArgs): Promise<number>;
}

/** Drop absent flags: the SDK's params are exact optional types, and absent is not `undefined`. */
export function defined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}
