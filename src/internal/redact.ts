/**
 * The one redactor of every secret the SDK holds, for everything it writes or passes on: log
 * lines, error messages and bodies, the proxy's answers, telemetry. What it removes:
 * - each secret (the API key, a callback secret, a callback token once derived) in every form
 *   an echo may write it: as is, percent-encoded, hex, and base64 or base64url at each of the
 *   three places a secret can start in a 3-byte group, inside longer runs too;
 * - the value of the `omnimedia_token` query parameter wherever it appears;
 * - a URL's credentials (`user:password@`);
 * - in text the SDK writes (`text`, not `data`), the query of every http(s) URL, where signed
 *   URLs keep their signature.
 * Ordinary text is left alone: a secret shorter than 16 characters is removed as written only
 * where it stands as a token of its own (so the key `test` leaves `latest-task` alone); its
 * encoded forms, which never turn up in prose, are removed wherever they show once they hold 4
 * characters the secret fixes.
 */

/** What stands where a secret was. */
export const REDACTED = '[redacted]';

/**
 * The query parameter of `callback_url` that carries the token.
 *
 * @example
 * ```ts
 * const url = new URL(request.url);
 * console.log(url.searchParams.has(CALLBACK_TOKEN_PARAM)); // true for a URL made with a callbackSecret
 * ```
 */
export const CALLBACK_TOKEN_PARAM = 'omnimedia_token';

/** A secret this long never turns up in ordinary text by chance: removed wherever it shows, glued to other characters too. */
const ALWAYS_SECRET_LENGTH = 16;
/** Characters an encoded form must fix for it to be searched: below this, prose matches it by chance. */
const MIN_FIXED_CHARS = 4;

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const encoder = new TextEncoder();

/** `text` as a regular expression source that matches it literally (`u` mode). */
const escapeLiteral = (text: string) => text.replace(/[$()*+.?[\\\]^{|}/]/g, '\\$&');
/** A hex digit in either case. */
const hexDigit = (digit: string) => (/[a-f]/.test(digit) ? `[${digit}${digit.toUpperCase()}]` : digit);
const hexOf = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
/** A character class (`u` mode) of base64 characters. */
const classOf = (chars: Iterable<string>) => {
  const list = [...new Set(chars)];
  return list.length === 1 ? escapeLiteral(list[0]!) : `[${list.map((c) => (/[-+/\\\]^]/.test(c) ? `\\${c}` : c)).join('')}]`;
};

/**
 * The base64 characters of any text holding `bytes` from byte `align` of a 3-byte group: each
 * character the secret's bits fix entirely, and at the two ends a class of the characters its
 * bits allow (the rest of their bits belong to the text around it).
 */
function base64Pattern(bytes: Uint8Array, align: number, urlSafe: boolean): { source: string; fixed: number } {
  const alphabet = urlSafe ? BASE64.replace('+', '-').replace('/', '_') : BASE64;
  const start = align * 8;
  const end = start + bytes.length * 8;
  let source = '';
  let fixed = 0;
  for (let char = Math.floor(start / 6); char * 6 < end; char++) {
    // The bits of this character the secret fixes (`mask`) and their values (`want`).
    let mask = 0;
    let want = 0;
    for (let i = 0; i < 6; i++) {
      const position = char * 6 + i - start;
      if (position < 0 || position >= bytes.length * 8) continue;
      mask |= 32 >> i;
      if ((bytes[position >> 3]! >> (7 - (position & 7))) & 1) want |= 32 >> i;
    }
    const allowed: string[] = [];
    for (let value = 0; value < 64; value++) if ((value & mask) === want) allowed.push(alphabet[value]!);
    if (allowed.length === 1) fixed++;
    source += classOf(allowed);
  }
  return { source, fixed };
}

/**
 * The regular expression sources of one secret's forms. `bounded`: forms matched only as a
 * token of their own (short secrets as written, where a letter or digit may stand beside them).
 */
function secretForms(secret: string): { anywhere: string[]; bounded: string[] } {
  const anywhere: string[] = [];
  const bounded: string[] = [];
  // A string that is not well-formed Unicode has no percent-encoding (encodeURIComponent throws).
  const written = new Set([secret, secret.isWellFormed() ? encodeURIComponent(secret) : secret]);
  for (const form of written) (secret.length >= ALWAYS_SECRET_LENGTH ? anywhere : bounded).push(caseFreeEscapes(escapeLiteral(form)));
  const bytes = encoder.encode(secret);
  const hex = hexOf(bytes);
  if (hex.length >= 2 * MIN_FIXED_CHARS) {
    anywhere.push([...hex].map(hexDigit).join(''));
    // Every byte percent-encoded (`%73%6B...`).
    anywhere.push(hex.replace(/../g, '%$&').replace(/[a-f]/g, hexDigit));
  }
  for (const urlSafe of [false, true])
    for (let align = 0; align < 3; align++) {
      const { source, fixed } = base64Pattern(bytes, align, urlSafe);
      if (fixed >= MIN_FIXED_CHARS) anywhere.push(source);
    }
  return { anywhere: [...new Set(anywhere)], bounded };
}

/** `%2F` or `%2f`: the hex digits of a percent escape in either case. */
const caseFreeEscapes = (source: string) => source.replace(/%([0-9A-F])([0-9A-F])/g, (_, a: string, b: string) => `%${hexDigit(a.toLowerCase())}${hexDigit(b.toLowerCase())}`);

/** Before a bounded form: no letter or digit, unless it ends an escape (`%20`, `\u0020`, `\x20`). */
const BEFORE_TOKEN = String.raw`(?:(?<=%[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|\\x[0-9A-Fa-f]{2})|(?<![\p{L}\p{N}]))`;
const AFTER_TOKEN = String.raw`(?![\p{L}\p{N}])`;
/** A character that ends a URL or a parameter in text: space, quotes, angle brackets, a backslash (a JSON escape). */
const URL_END = String.raw`\s"'<>\\`;
/** The token parameter's value (its name kept): `omnimedia_token=...`, or percent-encoded inside another URL. */
const TOKEN_VALUE = String.raw`(${CALLBACK_TOKEN_PARAM}(?:=|%3[Dd]))[^&#${URL_END}]+`;
/** A URL's userinfo (its scheme kept): `https://user:password@`. */
const CREDENTIALS = String.raw`(\b[A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/)[^/?#@${URL_END}]+(?=@)`;
/**
 * An http(s) URL's query and fragment (the URL before them kept); a last character of
 * punctuation is left to the sentence.
 */
const URL_QUERY = new RegExp(String.raw`(\bhttps?:\/\/[^?#${URL_END}]*[?#])[^${URL_END}]*[^${URL_END}).,;:!\]}]`, 'gi');

/**
 * Removes every secret the SDK holds from what it writes (see the module's comment).
 *
 * @example
 * ```ts
 * const redactor = createRedactor([apiKey]);
 * logger.warn(redactor.text(`retry after: ${error.message}`));
 * ```
 */
export interface Redactor {
  /** Text the SDK writes (a log line, an error message): secrets, tokens, URL credentials and URL queries removed. */
  text(text: string): string;
  /**
   * Data passed on (an error body, the proxy's answer): every string in it, keys too, without
   * secrets, tokens or URL credentials; URL queries kept (a result URL must stay usable). A
   * copy when anything changed.
   */
  data(value: unknown): unknown;
  /** A copy of `headers` with each value as `data` leaves a string (a server may echo `Authorization`). */
  headers(headers: Headers): Headers;
  /** Whether `text` holds anything `data` would remove: a quick test before a deep copy. */
  finds(text: string): boolean;
  /** Redact `secret` too from now on (a callback token, once derived). */
  add(secret: string): void;
}

/** A redactor of `secrets` (undefined and empty ones ignored), tokens and URL credentials. */
export function createRedactor(secrets: readonly (string | undefined)[] = []): Redactor {
  return redactorOf(secrets, secretForms);
}

/**
 * The redactor of a client that holds no secret (`TasksClient`): tokens, URL credentials and
 * queries only, without the secrets' encodings (about 1 KB a keyless page does not ship).
 */
export function createKeylessRedactor(): Redactor {
  return redactorOf([], undefined);
}

function redactorOf(secrets: readonly (string | undefined)[], formsOf: typeof secretForms | undefined): Redactor {
  const known = new Set<string>();
  // Built at the first use (most clients never log or fail): a new OmniMedia() costs no regex.
  let built: RegExp | undefined;
  const compile = (): RegExp => {
    const anywhere: string[] = [];
    const bounded: string[] = [];
    // Longer secrets first: a shorter one inside a longer one must not leave the rest behind.
    if (formsOf)
      for (const secret of [...known].sort((a, b) => b.length - a.length)) {
        const forms = formsOf(secret);
        anywhere.push(...forms.anywhere);
        bounded.push(...forms.bounded);
      }
    const alternatives = [TOKEN_VALUE, CREDENTIALS, ...anywhere];
    if (bounded.length > 0) alternatives.push(`${BEFORE_TOKEN}(?:${bounded.join('|')})${AFTER_TOKEN}`);
    return new RegExp(alternatives.join('|'), 'gu');
  };
  const add = (secret: string | undefined) => {
    if (!secret || known.has(secret)) return;
    known.add(secret);
    built = undefined;
  };
  for (const secret of secrets) add(secret);

  const secretsOut = (text: string) =>
    text.replace((built ??= compile()), (_match, parameter: string | undefined, scheme: string | undefined) => `${parameter ?? scheme ?? ''}${REDACTED}`);
  const finds = (text: string) => {
    const pattern = (built ??= compile());
    pattern.lastIndex = 0;
    const found = pattern.test(text);
    pattern.lastIndex = 0;
    return found;
  };
  const dataString = (text: string) => (finds(text) ? secretsOut(text) : text);
  return {
    text: (text) => secretsOut(text).replace(URL_QUERY, `$1${REDACTED}`),
    data: (value) => mapStrings(value, dataString),
    headers(headers) {
      const out = new Headers();
      headers.forEach((value, name) => out.append(name, dataString(value)));
      return out;
    },
    finds,
    add,
  };
}

/** A copy of plain data with `map` applied to every string in it, keys too (`__proto__` keys dropped). */
export function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) if (key !== '__proto__') out[map(key)] = mapStrings(item, map);
    return out;
  }
  return value;
}

/**
 * A URL as a log line, an error message or a span may record it: an http(s) URL's scheme, host
 * and path (no credentials, query or fragment); any other URL by its scheme alone (`data:`,
 * `blob:`: their "path" is the file itself); text that is no URL as `(not a URL)`.
 *
 * @example
 * ```ts
 * urlForRecord('https://u:p@cdn.example/a.png?X-Amz-Signature=abc'); // 'https://cdn.example/a.png'
 * urlForRecord('data:image/png;base64,iVBORw0...');                   // 'data:'
 * ```
 */
export function urlForRecord(url: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  if (scheme !== 'http' && scheme !== 'https') return scheme ? `${scheme}:` : '(not a URL)';
  if (!URL.canParse(url)) return `${scheme}:`;
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}
