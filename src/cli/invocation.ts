// The command a person types to run this CLI, for the commands its hints and help print
// ("Resume with: npx omnimedia tasks wait task_..."). A project's install puts no `omnimedia`
// on the PATH: a hint naming the bare command failed there ("command not found").
import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';

/** How a local install runs its bin: npm's npx, which finds it in the project's node_modules/.bin. */
export const LOCAL_COMMAND = 'npx omnimedia';
/** A global install's command, on the PATH. */
export const GLOBAL_COMMAND = 'omnimedia';

/**
 * `npx omnimedia` when a package manager started the CLI (npx, `npm exec`, an npm script: npm
 * sets `npm_config_user_agent`) or when it runs from a project's node_modules (the directory
 * above its first `node_modules` holds a package.json); `omnimedia` otherwise: a global install
 * (npm's `<prefix>/lib/node_modules`, with no package.json beside it) or a clone's dist/.
 * `cliFile` is the bin's real path (an ES main module's `import.meta.url` has its symlinks
 * resolved). Either guess is safe to print: `npx omnimedia` also runs a global install.
 */
export function invocationName(env: Record<string, string | undefined>, cliFile: string, isFile: (path: string) => boolean = existsSync): string {
  if (env.npm_config_user_agent) return LOCAL_COMMAND;
  const at = cliFile.indexOf(`${sep}node_modules${sep}`);
  if (at === -1) return GLOBAL_COMMAND;
  return isFile(join(cliFile.slice(0, at), 'package.json')) ? LOCAL_COMMAND : GLOBAL_COMMAND;
}

/**
 * Our help or hint text with each command it tells the person to run (`omnimedia ...` at a
 * line's start, or after `: `, `(` or `) `) as they run it. Mentions in a sentence stay.
 */
export function withCommand(text: string, command: string): string {
  return command === GLOBAL_COMMAND ? text : text.replace(/(^[ \t]*|: |\(|\) )omnimedia (?=[a-z<]|--)/gm, `$1${command} `);
}
