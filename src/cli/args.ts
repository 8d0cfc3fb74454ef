import { parseArgs } from 'node:util';

/** A wrong command line: an unknown flag, a missing argument. Exit code 2, like a validation error. */
export class UsageError extends Error {
  override name = 'UsageError';
  /** The flag or argument at fault, e.g. `--image`, when there is one. */
  readonly flag: string | undefined;

  constructor(message: string, flag?: string) {
    super(message);
    this.flag = flag;
  }
}

export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  /** The value's placeholder in help, e.g. `DIR`. */
  value?: string;
  description: string;
}

export interface CommandSpec {
  /** e.g. `images generate`. */
  name: string;
  summary: string;
  /** The argument part of the usage line, e.g. `--model M --prompt P [options]`. */
  usage: string;
  options: Record<string, OptionSpec>;
  /** Names of positional arguments, in order; the last may end in `...` for several. */
  positionals?: readonly string[];
  examples: readonly string[];
  /** More lines for the help page. */
  notes?: readonly string[];
}

export type ParsedValues = Record<string, string | boolean | string[] | undefined>;

export interface ParsedArgs {
  values: ParsedValues;
  positionals: string[];
}

/** `--api-key` and `--base-url`: every command that talks to the service takes them. */
export const CONNECTION_OPTIONS: Record<string, OptionSpec> = {
  'api-key': { type: 'string', value: 'KEY', description: 'API key (default: $OMNIMEDIA_API_KEY)' },
  'base-url': { type: 'string', value: 'URL', description: 'Service address (default: $OMNIMEDIA_BASE_URL)' },
  verbose: { type: 'boolean', description: 'Log every request and retry on stderr (the API key never appears)' },
};

export const OUTPUT_OPTIONS: Record<string, OptionSpec> = {
  json: { type: 'boolean', description: 'Print only JSON on stdout (for scripts)' },
  quiet: { type: 'boolean', short: 'q', description: 'No progress on stderr' },
};

/** Options of every command that waits for a task. */
export const WAIT_OPTIONS: Record<string, OptionSpec> = {
  out: { type: 'string', short: 'o', value: 'DIR', description: 'Download the results into DIR (implies --wait)' },
  timeout: { type: 'string', value: 'SECONDS', description: 'Give up waiting after SECONDS (exit 4); default 600 for images, 1800 for videos' },
  interval: { type: 'string', value: 'SECONDS', description: 'Seconds before the first query and between the first ones (default: the SDK\'s cadence, 3 s first)' },
};

export const SUBMIT_OPTIONS: Record<string, OptionSpec> = {
  wait: { type: 'boolean', short: 'w', description: 'Wait for the task to finish, with live progress' },
  ...WAIT_OPTIONS,
};

const HELP_OPTION: Record<string, OptionSpec> = { help: { type: 'boolean', short: 'h', description: 'Show this help' } };

/** Parse a command's arguments strictly: an unknown flag or a stray argument is a `UsageError`. */
export function parseCommand(spec: CommandSpec, argv: readonly string[]): ParsedArgs {
  const options = { ...spec.options, ...HELP_OPTION };
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: Object.fromEntries(
        Object.entries(options).map(([name, o]) => [
          name,
          { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) },
        ]),
      ),
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    const help = `See: omnimedia ${spec.name} --help`;
    // parseArgs says "Unknown option '--sise'. To specify a positional argument starting with
    // a '-', ..."; say it in our words, with the flag that was probably meant.
    const unknown = (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(-[^']*)'/.exec((error as Error).message)?.[1] : undefined;
    if (unknown) {
      const meant = closest(unknown.replace(/^-+/, ''), Object.keys(options));
      throw new UsageError(`unknown option ${unknown}${meant ? ` (did you mean --${meant}?)` : ''}. ${help}`, unknown);
    }
    throw new UsageError(`${(error as Error).message}. ${help}`);
  }
  const values = parsed.values as ParsedValues;
  if (values.help) return { values, positionals: parsed.positionals };
  checkPositionals(spec, parsed.positionals, values);
  return { values, positionals: parsed.positionals };
}

/**
 * The candidate nearest to `word` by edit distance (insertions, deletions, substitutions and
 * swaps of neighbours, each 1), if it is near enough to be a typo: at most a third of its length.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(word, name);
    if (distance <= Math.max(1, Math.floor(name.length / 3)) && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number) => d[i]?.[j] ?? Infinity;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = value;
    }
  }
  return at(a.length, b.length);
}

function checkPositionals(spec: CommandSpec, positionals: readonly string[], values: ParsedValues): void {
  const names = spec.positionals ?? [];
  const variadic = names.at(-1)?.endsWith('...') ?? false;
  const required = names.length;
  if (positionals.length < required) {
    const missing = names[positionals.length] ?? '';
    throw new UsageError(`missing ${missing.replace('...', '')}. Usage: omnimedia ${spec.name} ${spec.usage}`, missing);
  }
  if (!variadic && positionals.length > required) {
    const extra = positionals[required] ?? '';
    // The common slip: `--image a.png b.png`. Say how to give several.
    const repeatable = Object.entries(spec.options).find(([name, o]) => o.multiple && values[name] !== undefined);
    const hint = repeatable ? ` (to give several, repeat --${repeatable[0]})` : '';
    throw new UsageError(`unexpected argument "${extra}"${hint}. See: omnimedia ${spec.name} --help`, extra);
  }
}

/** A string flag's value, or `undefined` when absent. */
export function stringValue(values: ParsedValues, name: string): string | undefined {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
}

/** A repeatable flag's values (empty when absent). */
export function listValue(values: ParsedValues, name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
}

/**
 * A whole number for the SDK, or the text itself when it is not one, so that the SDK's own
 * validation reports the field and its rule (`n: must be an integer from 1 to 4`): the CLI
 * does not keep a second copy of the service's rules.
 */
export function integerOrText(text: string | undefined): number | string | undefined {
  if (text === undefined) return undefined;
  return /^[+-]?\d+$/.test(text.trim()) ? Number(text) : text;
}

/**
 * A number of seconds as whole ms, or a `UsageError` naming the flag when the text is not a
 * number. Its range is the SDK's rule, checked where the options are used (wait.ts), not here.
 */
export function secondsValue(values: ParsedValues, name: string): number | undefined {
  const text = stringValue(values, name);
  if (text === undefined) return undefined;
  const seconds = Number(text);
  if (text.trim() === '' || !Number.isFinite(seconds)) throw new UsageError(`--${name}: must be a number of seconds (got "${text}")`, `--${name}`);
  return Math.round(seconds * 1000);
}

/** The help page of a command. */
export function helpText(spec: CommandSpec): string {
  const options = { ...spec.options, ...HELP_OPTION };
  const rows = Object.entries(options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : '    '}--${name}${o.value ? ` ${o.value}` : ''}`;
    return [flag, `${o.description}${o.multiple ? ' (repeatable)' : ''}`] as const;
  });
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  return [
    `${spec.summary}`,
    '',
    `Usage: omnimedia ${spec.name} ${spec.usage}`,
    '',
    'Options:',
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}${text}`),
    ...(spec.notes?.length ? ['', ...spec.notes] : []),
    '',
    'Examples:',
    ...spec.examples.map((e) => `  ${e}`),
    '',
  ].join('\n');
}
