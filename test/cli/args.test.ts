import { describe, expect, it } from 'vitest';
import { UsageError, helpText, integerOrText, parseCommand, secondsValue } from '../../src/cli/args.ts';
import { COMMANDS, type Command } from '../../src/cli/commands/index.ts';
import { runCli } from './helpers/run.ts';

const all: Command[] = Object.values(COMMANDS).flatMap((entry) =>
  'spec' in entry ? [entry as Command] : Object.values(entry as Record<string, Command>),
);

/** Split a shell line into words, honouring double quotes; stop at a pipe. */
function words(line: string): string[] {
  const out: string[] = [];
  for (const match of line.split('|')[0]!.matchAll(/"([^"]*)"|(\S+)/g)) out.push(match[1] ?? match[2]!);
  return out;
}

describe('cli arguments', () => {
  it.each(all.map((c) => [c.spec.name, c] as const))('%s --help shows usage, every option and examples that parse', async (name, command) => {
    const run = await runCli([...name.split(' '), '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(helpText(command.spec));
    expect(run.stdout).toContain(`Usage: omnimedia ${name}`);
    for (const option of Object.keys(command.spec.options)) expect(run.stdout).toContain(`--${option}`);
    const examples = command.spec.examples.filter((e) => e.startsWith(`omnimedia ${name} `));
    expect(examples.length).toBeGreaterThan(0);
    // An example that does not parse would teach a wrong command line.
    for (const example of examples) expect(() => parseCommand(command.spec, words(example).slice(1 + name.split(' ').length))).not.toThrow();
  });

  it('top-level help lists every command and the exit codes', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const command of all) expect(run.stdout).toContain(command.spec.name);
    expect(run.stdout).toContain('4 wait timed out');
    const none = await runCli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('Usage: omnimedia <command>');
    const group = await runCli(['videos']);
    expect(group.stdout).toContain('videos generate');
    expect(group.stdout).toContain('videos edit');
  });

  it('an unknown command or flag is a usage error (exit 2) that says where to look', async () => {
    const unknown = await runCli(['pictures', 'generate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "pictures"');
    const flag = await runCli(['images', 'generate', '--sise', '1024x1024']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('unknown option --sise (did you mean --size?)');
    expect(flag.stderr).toContain('omnimedia images generate --help');
    const json = await runCli(['images', 'generate', '--sise', 'x', '--json']);
    expect(JSON.parse(json.stdout).error).toMatchObject({ type: 'UsageError', exit_code: 2 });
  });

  it('a stray word after a repeatable flag hints at repeating it', () => {
    const spec = COMMANDS.images as Record<string, Command>;
    expect(() => parseCommand(spec.edit!.spec, ['--image', 'a.png', 'b.png'])).toThrow(/repeat --image/);
  });

  it('passes non-numbers through so the SDK reports the rule; --timeout is read as ms, its range left to the SDK', () => {
    expect(integerOrText('3')).toBe(3);
    expect(integerOrText('three')).toBe('three');
    expect(integerOrText('2.5')).toBe('2.5');
    expect(integerOrText(undefined)).toBeUndefined();
    expect(secondsValue({ timeout: '1.5' }, 'timeout')).toBe(1500);
    expect(secondsValue({ timeout: '-1' }, 'timeout')).toBe(-1000);
    expect(() => secondsValue({ timeout: 'soon' }, 'timeout')).toThrow(UsageError);
    expect(() => secondsValue({ timeout: 'Infinity' }, 'timeout')).toThrow('--timeout: must be a number of seconds (got "Infinity")');
  });

  it('--version prints the package version', async () => {
    const run = await runCli(['--version']);
    expect(run.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});
