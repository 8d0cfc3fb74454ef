import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ValidationError } from 'omnimedia';

/** An http(s) URL: sent as it is (an upload URL), never read from disk. */
export const isHttpUrl = (text: string): boolean => /^https?:\/\//i.test(text);

/** What a video reference names: an upload id has no slash and no file extension of a video. */
const looksLikePath = (text: string): boolean => /^file:|[\\/]|\.(mp4|mov|webm|mkv|m4v)$/i.test(text);

/** `inner` lies inside `outer` (both real paths), not `outer` itself, on the same root. */
function isInside(inner: string, outer: string): boolean {
  const path = relative(outer, inner);
  return path !== '' && path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path);
}

/**
 * The files the agent may name: only inside the allowed directories once `..` and symbolic
 * links are resolved (a link out of them, another drive or root, is refused). Relative paths
 * start at the server's working directory. Every refusal is a `ValidationError` naming the
 * field, before anything is sent.
 */
export class LocalFiles {
  readonly #dirs: readonly string[];
  #realDirs: Promise<string[]> | undefined;

  constructor(allowedDirs: readonly string[]) {
    this.#dirs = allowedDirs;
  }

  /** The allowed directories, as given (resolved), for messages. */
  get dirs(): readonly string[] {
    return this.#dirs;
  }

  /** The allowed directories' real paths; one that does not exist allows nothing. */
  #real(): Promise<string[]> {
    this.#realDirs ??= Promise.all(this.#dirs.map((dir) => realpath(dir).catch(() => undefined))).then((dirs) => dirs.filter((d) => d !== undefined));
    return this.#realDirs;
  }

  #refuse(field: string, message: string): never {
    throw new ValidationError([{ path: field, message }], 'local file');
  }

  /** The real path of the file `given` names, when the agent may read it. */
  async resolve(given: string, field: string): Promise<string> {
    if (this.#dirs.length === 0) this.#refuse(field, `"${given}" is a local path, and this server reads no local files: give an upload URL or id`);
    const allowed = `the allowed directories (${this.#dirs.join(', ')})`;
    let path: string;
    try {
      path = resolve(/^file:/i.test(given) ? fileURLToPath(given) : given);
    } catch {
      return this.#refuse(field, `"${given}" is not a file path or file:// URL`);
    }
    const dirs = await this.#real();
    // Said before the file is looked for: whether it exists outside is none of the agent's business.
    if (!this.#dirs.some((dir) => isInside(path, dir)) && !dirs.some((dir) => isInside(path, dir))) this.#refuse(field, `"${given}" is outside ${allowed}`);
    const real = await realpath(path).catch(() => undefined);
    if (real === undefined) return this.#refuse(field, `"${given}" was not found in ${allowed}`);
    if (!dirs.some((dir) => isInside(real, dir))) this.#refuse(field, `"${given}" leads outside ${allowed} through a symbolic link`);
    if (!(await stat(real)).isFile()) this.#refuse(field, `"${given}" is not a file`);
    return real;
  }

  /**
   * The real path of the local file a reference names, or `undefined` when it names none: an
   * image's http(s) URL (sent as it is), a video's upload id (no slash, no video extension, no
   * `file:`), anything not a string (the rules judge it).
   */
  async localPath(value: unknown, kind: 'image' | 'video', field: string): Promise<string | undefined> {
    if (typeof value !== 'string' || value === '') return undefined;
    if (kind === 'image' ? isHttpUrl(value) : !looksLikePath(value)) return undefined;
    return this.resolve(value, field);
  }
}
