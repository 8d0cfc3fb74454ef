import pkg from '../../package.json' with { type: 'json' };
import { terminalJson } from './terminal-text.ts';
import { UsageError, helpText, parseCommand } from './args.ts';
import { COMMANDS, type Command } from './commands/index.ts';
import { Context, type CliIO } from './context.ts';
import { EXIT, Interrupted, defaultFlagNamer, errorJson, errorText, exitCodeFor } from './exit.ts';
import { GLOBAL_COMMAND, withCommand } from './invocation.ts';

const { version } = pkg;

const TOP_HELP = `omnimedia ${version}: the image and video generation service from the command line.

Usage: omnimedia <command> [options]

Commands:
  images generate   Generate images from a prompt
  images edit       Edit images (local files are uploaded first)
  videos generate   Generate a video from a prompt, or from images and a prompt
  videos edit       Edit a video (a local file is uploaded first)
  uploads image     Upload a reference image; prints its url
  uploads video     Upload a source video; prints its upload_id
  tasks get         Show a task once
  tasks wait        Wait for a task, with live progress
  batch             Run a JSONL file of jobs, resumable without paying twice
  mock              Run the mock service locally (no key, no network)
  mcp               Run an MCP server for AI agents (stdio, or --http)
  studio            A local web app: prompts, parameters, results (--mock: no key)

Every command takes --help, with examples. Submissions take --wait (live progress on
stderr), --out DIR (download the results) and --json (only JSON on stdout).

Configuration:
  OMNIMEDIA_API_KEY    or --api-key KEY   (submissions and uploads need one)
  OMNIMEDIA_BASE_URL   or --base-url URL  (the service's address)

Exit codes:
  0 success   1 task failed   2 usage or validation error   3 API error
  4 wait timed out   130 interrupted (Ctrl-C; the task id is printed)

Examples:
  omnimedia mock --port 4010 &
  export OMNIMEDIA_BASE_URL=http://127.0.0.1:4010 OMNIMEDIA_API_KEY=sk-mock
  omnimedia images generate -m omni-image -p "a lighthouse at dawn" --wait --out .
  omnimedia videos generate -p "a paper boat" -i boat.png --seconds 6 --wait
  omnimedia tasks wait task_123 --json | jq -r ".data[].url"
`;

function groupHelp(group: string, actions: Record<string, Command>): string {
  const rows = Object.entries(actions).map(([action, command]) => `  ${group} ${action.padEnd(10)}${command.spec.summary}`);
  return [`Usage: omnimedia ${group} <${Object.keys(actions).join('|')}> [options]`, '', ...rows, '', `See: omnimedia ${group} <action> --help`, ''].join('\n');
}

function findCommand(argv: readonly string[]): { command: Command; rest: string[] } | { help: string } {
  const [group = '', action, ...rest] = argv;
  const entry = COMMANDS[group];
  if (!entry) throw new UsageError(`unknown command "${group}". Commands: ${Object.keys(COMMANDS).join(', ')}. See: omnimedia --help`);
  if ('spec' in entry) return { command: entry as Command, rest: argv.slice(1) };
  const actions = entry as Record<string, Command>;
  if (action === undefined || action === '--help' || action === '-h') return { help: groupHelp(group, actions) };
  const command = actions[action];
  if (!command)
    throw new UsageError(`unknown command "${group} ${action}". ${group}: ${Object.keys(actions).join(', ')}. See: omnimedia ${group} --help`);
  return { command, rest };
}

/** Run the CLI: parse, dispatch, and turn every outcome into an exit code. Never throws. */
export async function main(argv: readonly string[], io: CliIO): Promise<number> {
  const first = argv[0];
  // Help and hints name the command as the person runs it (`npx omnimedia` from a project's install).
  const name = io.command ?? GLOBAL_COMMAND;
  if (first === undefined) {
    io.stderr.write(withCommand(TOP_HELP, name));
    return EXIT.usage;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    io.stdout.write(withCommand(TOP_HELP, name));
    return EXIT.ok;
  }
  if (first === '--version' || first === '-V') {
    io.stdout.write(`${version}\n`);
    return EXIT.ok;
  }
  let ctx: Context | undefined;
  let command: Command | undefined;
  try {
    const found = findCommand(argv);
    if ('help' in found) {
      io.stdout.write(withCommand(found.help, name));
      return EXIT.ok;
    }
    command = found.command;
    const args = parseCommand(command.spec, found.rest);
    if (args.values.help) {
      io.stdout.write(withCommand(helpText(command.spec), name));
      return EXIT.ok;
    }
    const flags = command.flags ?? {};
    ctx = new Context(io, args.values);
    // The download's target (`to`, cli/download.ts) is what the user gave as --out.
    ctx.flagFor = (field) => flags[field.split(/[.[]/)[0] ?? field] ?? (field === 'to' ? '--out' : defaultFlagNamer(field));
    return await command.run(ctx, args);
  } catch (caught) {
    ctx?.progress.stop();
    // Ctrl-C during an upload or a query: the abort's reason surfaces; report it as such.
    const error = io.signal.aborted && !(caught instanceof Interrupted) ? new Interrupted() : caught;
    const flagFor = ctx?.flagFor ?? defaultFlagNamer;
    io.stderr.write(`${errorText(error, flagFor, ctx?.sent, name)}\n`);
    // With --json a script reads the error from stdout too, as the one JSON document there; not
    // for a command without --json (`mcp`: its stdout is the JSON-RPC channel).
    if (ctx ? ctx.output.json : argv.includes('--json') && (command === undefined || command.spec.options.json !== undefined)) io.stdout.write(`${terminalJson(errorJson(error, flagFor, ctx?.sent))}\n`);
    return exitCodeFor(error);
  }
}
