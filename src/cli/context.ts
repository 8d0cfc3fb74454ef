import { OmniMedia, type Logger } from 'omnimedia';
import { UsageError, stringValue, type ParsedValues } from './args.ts';
import { defaultFlagNamer, type FlagNamer, type SentSoFar } from './exit.ts';
import { GLOBAL_COMMAND } from './invocation.ts';
import { Output, type ResultStream } from './output.ts';
import { createProgress, type Progress, type TerminalStream } from './progress.ts';

/** What the CLI touches of the outside world; tests and `main` pass their own. */
export interface CliIO {
  stdout: ResultStream;
  stderr: TerminalStream;
  env: Record<string, string | undefined>;
  /** Aborted on Ctrl-C: waits stop, the task id is printed. */
  signal: AbortSignal;
  /** The command the person types to run this CLI (`invocationName`), as hints name it; default `omnimedia`. */
  command?: string;
}

/** Everything a command needs, built once from its parsed flags. */
export class Context {
  readonly output: Output;
  readonly progress: Progress;
  /** Maps the SDK's field names in validation errors to this command's flags. */
  flagFor: FlagNamer = defaultFlagNamer;
  /** What this run has sent: errors say "nothing was sent" only while nothing was, and name the task once there is one. */
  readonly sent: SentSoFar = { requests: false, taskId: undefined };
  #client: OmniMedia | undefined;

  constructor(
    readonly io: CliIO,
    readonly values: ParsedValues,
  ) {
    const json = values.json === true;
    this.output = new Output(io.stdout, io.stderr, json);
    this.progress = createProgress(io.stderr, { quiet: values.quiet === true });
  }

  get signal(): AbortSignal {
    return this.io.signal;
  }

  /** The command the person types: `npx omnimedia` from a project's install, `omnimedia` from a global one. */
  get command(): string {
    return this.io.command ?? GLOBAL_COMMAND;
  }

  /**
   * The SDK client from `--api-key`/`--base-url` or the environment. Built on first use, so
   * `--help` and local checks work without any configuration.
   */
  client(): OmniMedia {
    if (this.#client) return this.#client;
    const baseURL = stringValue(this.values, 'base-url') ?? nonEmpty(this.io.env.OMNIMEDIA_BASE_URL);
    const apiKey = stringValue(this.values, 'api-key') ?? nonEmpty(this.io.env.OMNIMEDIA_API_KEY);
    if (!baseURL) {
      throw new UsageError(
        'no service address: pass --base-url URL or set OMNIMEDIA_BASE_URL (to try things locally: omnimedia mock)',
        '--base-url',
      );
    }
    // SDK log lines go above the live progress line, never onto stdout.
    const line = (message: string, ...args: unknown[]) =>
      this.progress.log([message, ...args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a)))].join(' '));
    const logger: Logger = { error: line, warn: line, info: line, debug: line };
    this.#client = new OmniMedia({
      baseURL,
      ...(apiKey ? { apiKey } : {}),
      logger,
      // Every request of the run goes through here, so an error knows whether any went out.
      fetch: (input, init) => {
        this.sent.requests = true;
        return globalThis.fetch(input, init);
      },
      ...(this.values.verbose === true ? { logLevel: 'debug' as const } : {}),
    });
    return this.#client;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value?.trim() ? value.trim() : undefined;
}
