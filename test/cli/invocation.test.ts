// The CLI's hints name the command as the person runs it: `npx omnimedia ...` from a project's
// install (which puts no `omnimedia` on the PATH: "Resume with: omnimedia tasks wait ..." was a
// command not found there), bare `omnimedia ...` from a global install.
import { sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { invocationName, withCommand } from '../../src/cli/invocation.ts';
import { runCli } from './helpers/run.ts';

const at = (...parts: string[]) => parts.join(sep);
const project = at('', 'home', 'ana', 'app');
const files = new Set([at(project, 'package.json')]);
const isFile = (path: string) => files.has(path);

describe('invocationName', () => {
  it('npx omnimedia from a project: its node_modules, or started by npm (npx, npm exec, a script)', () => {
    expect(invocationName({}, at(project, 'node_modules', 'omnimedia', 'dist', 'cli.js'), isFile)).toBe('npx omnimedia');
    // pnpm's store is inside the project's node_modules too.
    expect(invocationName({}, at(project, 'node_modules', '.pnpm', 'omnimedia@1.0.0', 'node_modules', 'omnimedia', 'dist', 'cli.js'), isFile)).toBe('npx omnimedia');
    expect(invocationName({ npm_config_user_agent: 'npm/11.6.2 node/v24.21.0 linux x64 workspaces/false' }, at('', 'tmp', 'x', 'cli.js'), isFile)).toBe('npx omnimedia');
  });

  it('omnimedia from a global install (no package.json above its node_modules) or a clone', () => {
    expect(invocationName({}, at('', 'usr', 'local', 'lib', 'node_modules', 'omnimedia', 'dist', 'cli.js'), isFile)).toBe('omnimedia');
    expect(invocationName({}, at('', 'home', 'ana', 'src', 'omnimedia', 'dist', 'cli.js'), isFile)).toBe('omnimedia');
  });

  it('withCommand rewrites the commands a text tells to run, not the name in a sentence', () => {
    expect(withCommand('Resume with: omnimedia tasks wait t1', 'npx omnimedia')).toBe('Resume with: npx omnimedia tasks wait t1');
    expect(withCommand('  omnimedia mock --port 4010 &\nUsage: omnimedia <command>\nSee: omnimedia --help', 'npx omnimedia')).toBe(
      '  npx omnimedia mock --port 4010 &\nUsage: npx omnimedia <command>\nSee: npx omnimedia --help',
    );
    expect(withCommand('run npx -y -p omnimedia -p sdk omnimedia mcp; omnimedia 1.0.0', 'npx omnimedia')).toBe('run npx -y -p omnimedia -p sdk omnimedia mcp; omnimedia 1.0.0');
    expect(withCommand('Resume with: omnimedia tasks wait t1', 'omnimedia')).toBe('Resume with: omnimedia tasks wait t1');
  });
});

describe('the hints, both ways', () => {
  it.each([
    ['npx omnimedia', 'npx omnimedia'],
    [undefined, 'omnimedia'],
  ])('started as %s: they name %s', async (command, expected) => {
    const io = command === undefined ? {} : { command };
    const noAddress = await runCli(['images', 'generate', '-m', 'm', '-p', 'p'], io);
    expect(noAddress.stderr).toContain(`(to try things locally: ${expected} mock)`);
    expect(noAddress.stderr).not.toContain(`${expected === 'omnimedia' ? 'npx ' : 'npx npx '}omnimedia`);
    const typo = await runCli(['images', 'generate', '--promt', 'x'], io);
    expect(typo.stderr).toContain(`See: ${expected} images generate --help`);
    const help = await runCli(['--help'], io);
    expect(help.stdout).toContain(`\n  ${expected} mock --port 4010 &\n`);
    const commandHelp = await runCli(['tasks', 'wait', '--help'], io);
    expect(commandHelp.stdout).toContain(`Usage: ${expected} tasks wait`);
  });
});
