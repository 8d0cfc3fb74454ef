// The one redactor: every form of every secret goes, ordinary text stays. The oracle
// (secretFormsIn) decodes instead of matching the redactor's own patterns.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CALLBACK_TOKEN_PARAM, createKeylessRedactor, createRedactor, mapStrings, REDACTED, urlForRecord } from '../../src/internal/redact.ts';
import { secretFormsIn } from '../helpers/secret-forms.ts';

const KEY_CHARS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/=';
const keyOf = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...KEY_CHARS), minLength: min, maxLength: max });
const bytesOf = (text: string) => new TextEncoder().encode(text);
const base64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

/** How an echo may write `text` (which holds the key). */
const ENCODINGS: Record<string, (text: string) => string> = {
  'as written': (text) => text,
  'percent-encoded': encodeURIComponent,
  'percent-encoded, lower-case hex': (text) => encodeURIComponent(text).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
  hex: (text) => Buffer.from(text).toString('hex'),
  'HEX': (text) => Buffer.from(text).toString('hex').toUpperCase(),
  'every byte percent-encoded': (text) => Buffer.from(text).toString('hex').replace(/../g, '%$&'),
  base64: (text) => base64(bytesOf(text)),
  base64url: (text) => base64url(bytesOf(text)),
};

const LITERAL_FORMS = ['as written', 'percent-encoded', 'percent-encoded, lower-case hex'];

describe('the key in every form, at every alignment, inside longer runs, for keys of every length', () => {
  it.each(Object.keys(ENCODINGS))('%s: text() and data() leave no trace of it', (encoding) => {
    fc.assert(
      fc.property(keyOf(4, 48), fc.string({ maxLength: 7 }), fc.string({ maxLength: 7 }), (key, before, after) => {
        // An echo of the Authorization header, as a service might write it back. A key under 16
        // characters as written is a token of its own (a letter glued to it makes it a word):
        // encoded, it is removed inside any run.
        const glued = key.length >= 16 || !LITERAL_FORMS.includes(encoding);
        // The text around it may not hold a short key itself: glued to a word there, it is a word
        // (kept on purpose), which the oracle would still count (seed 274537610: "ueOfBearer ueOf").
        fc.pre(glued || !`${before}${after}`.includes(key));
        const echoed = ENCODINGS[encoding]!(`${before}Bearer ${key}${glued ? '' : '"'}${after}`);
        const redactor = createRedactor([key]);
        const line = `upstream said: ${echoed} (req 7)`;
        expect(secretFormsIn(redactor.text(line), key)).toEqual([]);
        expect(secretFormsIn(JSON.stringify(redactor.data({ echo: echoed, [echoed]: [echoed] })), key)).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('the issue’s case: a 13-character key in base64 (`Bearer sk-9f8e7d6c5b`)', () => {
    const redactor = createRedactor(['sk-9f8e7d6c5b']);
    const out = redactor.text('QmVhcmVyIHNrLTlmOGU3ZDZjNWI=');
    expect(out).toContain(REDACTED);
    expect(secretFormsIn(out, 'sk-9f8e7d6c5b')).toEqual([]);
  });

  it('a key of 16 characters or more goes wherever it shows, glued to other characters too', () => {
    const key = 'sk-test-0123456789abcdef';
    expect(createRedactor([key]).text(`x${key}y and ${key}`)).toBe(`x${REDACTED}y and ${REDACTED}`);
  });

  it('a shorter key goes where it stands as a token of its own (after an escape too), not inside a word', () => {
    const redactor = createRedactor(['test']);
    expect(redactor.text('key=test "test" test: contest testing tested latest-task my-test Bearer%20test \\u0020test')).toBe(
      `key=${REDACTED} "${REDACTED}" ${REDACTED}: contest testing tested latest-task my-${REDACTED} Bearer%20${REDACTED} \\u0020${REDACTED}`,
    );
  });

  it('several secrets, one inside another: the longer goes whole', () => {
    const redactor = createRedactor(['abcd', 'xxabcdxx-0123456789']);
    expect(redactor.text('key xxabcdxx-0123456789 and abcd')).toBe(`key ${REDACTED} and ${REDACTED}`);
  });

  it('a secret added later (a callback token once derived) goes too', () => {
    const redactor = createRedactor();
    expect(redactor.text('token Zm9vYmFyYmF6cXV4')).toBe('token Zm9vYmFyYmF6cXV4');
    redactor.add('Zm9vYmFyYmF6cXV4');
    expect(redactor.text('token Zm9vYmFyYmF6cXV4')).toBe(`token ${REDACTED}`);
  });
});

describe('ordinary text that merely holds a short key’s characters is left alone', () => {
  const WORDS = ['the', 'task', 'latest', 'completed', 'failed', 'after', 'retry', 'image', 'video', 'upload', 'status', 'pending', 'queue', 'provider', 'timeout', 'seconds', '1536x1024', 'omni-image', '404', 'Not', 'Found', 'in', 'ms', 'https://media.example.com/v1/tasks/abc'];

  it('a 4-to-13-character key: every text of words, numbers and paths that holds it inside its words comes back unchanged', () => {
    fc.assert(
      fc.property(
        keyOf(4, 13).filter((key) => /^[a-z0-9]/i.test(key) && /[a-z0-9]$/i.test(key)),
        fc.array(fc.tuple(fc.constantFrom(...WORDS), fc.boolean(), fc.stringMatching(/^[a-z]{1,3}$/)), { minLength: 1, maxLength: 20 }),
        (key, parts) => {
          // The key glued inside words (`latest` holds `test`), never standing alone.
          const text = parts.map(([word, glue, letters]) => (glue ? `${letters}${key}${letters}` : word)).join(' ');
          const redactor = createRedactor([key]);
          expect(redactor.data(text)).toBe(text);
          expect(redactor.text(text)).toBe(text);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('prose, numbers, ids and hex hashes with the key `test` or `sk-9f8e7d6c5b` stay as they are', () => {
    const text =
      'Task task_7f3a9c2e1b (latest) completed in 12 s; contest results tested; sha256 9f86d081884c7d659a2feaa0c55ad015; request req_0123456789; ' +
      'size 1536x1024, n=4; https://cdn.example.com/out/9f8e7d6c5b/a.png; sk- prefix, 9f8e7d6c5b alone';
    for (const key of ['test', 'sk-9f8e7d6c5b']) expect(createRedactor([key]).data(text)).toBe(text);
  });
});

describe('callback tokens, URL credentials and signed queries', () => {
  const redactor = createRedactor();

  it(`the ${CALLBACK_TOKEN_PARAM} parameter's value goes wherever it appears, percent-encoded inside another URL too; the rest of the URL stays`, () => {
    const url = `https://app.example/cb?a=1&${CALLBACK_TOKEN_PARAM}=T0k3n_-x&b=2`;
    expect(redactor.data(`echo: ${url}`)).toBe(`echo: https://app.example/cb?a=1&${CALLBACK_TOKEN_PARAM}=${REDACTED}&b=2`);
    expect(redactor.data(encodeURIComponent(url))).not.toContain('T0k3n');
    expect(redactor.data({ body: { callback_url: url } })).toEqual({ body: { callback_url: `https://app.example/cb?a=1&${CALLBACK_TOKEN_PARAM}=${REDACTED}&b=2` } });
  });

  it('credentials in any URL go; its scheme and host stay', () => {
    expect(redactor.data('fetch https://user:p%40ss@cdn.example/x.png failed')).toBe(`fetch https://${REDACTED}@cdn.example/x.png failed`);
    expect(redactor.text('redis://:hunter2@redis.internal:6379/0')).toBe(`redis://${REDACTED}@redis.internal:6379/0`);
    expect(redactor.data('write to me@example.com')).toBe('write to me@example.com');
  });

  it('text() drops the query and fragment of every http(s) URL (a signed URL keeps its signature in it); data() keeps them, a result URL must work', () => {
    const signed = 'https://bucket.s3.amazonaws.com/out/a.png?X-Amz-Credential=AKIA%2F&X-Amz-Signature=abc123';
    expect(redactor.text(`GET ${signed} failed (see ${signed}).`)).toBe(
      `GET https://bucket.s3.amazonaws.com/out/a.png?${REDACTED} failed (see https://bucket.s3.amazonaws.com/out/a.png?${REDACTED}).`,
    );
    expect(redactor.text('{"url":"https://h/a.png?sig=1"}')).toBe(`{"url":"https://h/a.png?${REDACTED}"}`);
    expect(redactor.data({ url: signed })).toEqual({ url: signed });
    expect(redactor.text('https://h/a.png and https://h/b?')).toBe('https://h/a.png and https://h/b?');
  });

  it('the keyless redactor (TasksClient) removes tokens, credentials and queries all the same', () => {
    const keyless = createKeylessRedactor();
    expect(keyless.text(`https://u:p@h.example/cb?${CALLBACK_TOKEN_PARAM}=abc&x=1 and https://cdn.example/a.png?sig=1`)).toBe(
      `https://${REDACTED}@h.example/cb?${REDACTED} and https://cdn.example/a.png?${REDACTED}`,
    );
    expect(keyless.data(`cb?${CALLBACK_TOKEN_PARAM}=abc`)).toBe(`cb?${CALLBACK_TOKEN_PARAM}=${REDACTED}`);
  });

  it('headers(): each value as data() leaves it', () => {
    const out = createRedactor(['sk-9f8e7d6c5b']).headers(new Headers({ 'x-echo': 'Bearer sk-9f8e7d6c5b', 'x-request-id': 'r1' }));
    expect(Object.fromEntries(out)).toEqual({ 'x-echo': `Bearer ${REDACTED}`, 'x-request-id': 'r1' });
  });
});

describe('urlForRecord: what a log, an error or a span records of a URL', () => {
  it.each([
    ['https://user:pass@cdn.example:8443/a/b.png?X-Amz-Signature=1#f', 'https://cdn.example:8443/a/b.png'],
    ['http://127.0.0.1/x', 'http://127.0.0.1/x'],
    [`data:image/png;base64,${'A'.repeat(1000)}`, 'data:'],
    ['blob:https://app.example/7b1e', 'blob:'],
    ['file:///etc/passwd', 'file:'],
    ['not a url', '(not a URL)'],
  ])('%s → %s', (url, recorded) => {
    expect(urlForRecord(url)).toBe(recorded);
  });
});

// Tests that kill the mutants the suites above leave (mutation testing, issue 41): kept apart
// from them so that changes to the redactor's rules merge cleanly.
describe('the redactor at its edges (mutation-tested)', () => {
  it('data() maps every string of arrays and nested objects, keys too, and leaves other values as they are', () => {
    const redactor = createRedactor(['sk-9f8e7d6c5b']);
    const body = { list: ['Bearer sk-9f8e7d6c5b', 7, true, null, { 'sk-9f8e7d6c5b': ['sk-9f8e7d6c5b'] }], n: 0, none: null };
    expect(redactor.data(body)).toEqual({
      list: [`Bearer ${REDACTED}`, 7, true, null, { [REDACTED]: [REDACTED] }],
      n: 0,
      none: null,
    });
    expect(redactor.data(null)).toBeNull();
    expect(redactor.data(undefined)).toBeUndefined();
  });

  it('mapStrings drops a `__proto__` key: the copy’s prototype stays Object’s (no pollution through a parsed body)', () => {
    const parsed = JSON.parse('{"__proto__": {"polluted": "yes"}, "a": "b"}') as unknown;
    const copy = mapStrings(parsed, (text) => text.toUpperCase()) as Record<string, unknown>;
    expect(copy).toEqual({ A: 'B' });
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect('polluted' in copy).toBe(false);
    expect(mapStrings([['x'], 'y', 1], (text) => `${text}!`)).toEqual([['x!'], 'y!', 1]);
  });

  it('two long secrets, one the start of the other: the longer goes whole, whichever order they are given in', () => {
    const short = 'abcdefghijklmnop';
    const long = `${short}-0123456789`;
    for (const secrets of [
      [short, long],
      [long, short],
    ]) {
      expect(createRedactor(secrets).text(`key ${long}; ${short}.`)).toBe(`key ${REDACTED}; ${REDACTED}.`);
    }
  });

  it('a key whose base64 holds `+` and `/` goes in base64 and in base64url (`-` and `_`), at each alignment', () => {
    for (const key of ['>>>???>>>???', '~~~???~~~>>>']) {
      const redactor = createRedactor([key]);
      for (const before of ['', 'a', 'ab']) {
        const bytes = Buffer.from(`${before}Bearer ${key}`);
        for (const encoded of [bytes.toString('base64'), bytes.toString('base64url')]) {
          const out = redactor.text(`echo ${encoded} end`);
          expect(out).toContain(REDACTED);
          expect(secretFormsIn(out, key)).toEqual([]);
        }
      }
    }
  });

  it('finds(): true for what data() would change, false for the rest, again and again (the pattern keeps no state)', () => {
    const redactor = createRedactor(['sk-9f8e7d6c5b']);
    for (let i = 0; i < 3; i++) {
      expect(redactor.finds('Bearer sk-9f8e7d6c5b')).toBe(true);
      expect(redactor.finds('nothing here')).toBe(false);
    }
    expect(redactor.finds(`cb?${CALLBACK_TOKEN_PARAM}=abc`)).toBe(true);
  });

  it('an empty or repeated secret adds nothing; a secret added later rebuilds the pattern', () => {
    const redactor = createRedactor(['', undefined, 'sk-9f8e7d6c5b', 'sk-9f8e7d6c5b']);
    expect(redactor.text('a b sk-9f8e7d6c5b')).toBe(`a b ${REDACTED}`);
    redactor.add('');
    expect(redactor.text('a b')).toBe('a b');
    redactor.add('sk-other-1234');
    expect(redactor.text('sk-9f8e7d6c5b sk-other-1234')).toBe(`${REDACTED} ${REDACTED}`);
  });

  it('16 characters is the length from which a key goes glued to other characters; hex is searched from 4 bytes', () => {
    expect(createRedactor(['abcdefghijklmnop']).text('xabcdefghijklmnopy')).toBe(`x${REDACTED}y`);
    expect(createRedactor(['abcdefghijklmno']).text('xabcdefghijklmnoy')).toBe('xabcdefghijklmnoy');
    expect(createRedactor(['abcd']).text('hex 61626364 HEX 61626364')).toBe(`hex ${REDACTED} HEX ${REDACTED}`);
    expect(createRedactor(['abc']).text('hex 616263')).toBe('hex 616263');
  });

  it('a secret that is not well-formed Unicode (a lone surrogate) is removed as written, without throwing', () => {
    expect(createRedactor(['\ud800lone-surrogate-key']).text('a \ud800lone-surrogate-key b')).toBe(`a ${REDACTED} b`);
  });

  it('the token parameter percent-encoded with a lower-case %3d goes too (to the end of the encoded URL: a %26 does not end it)', () => {
    expect(createRedactor().data(`cb%3F${CALLBACK_TOKEN_PARAM}%3dabc%26x=1 next`)).toBe(`cb%3F${CALLBACK_TOKEN_PARAM}%3d${REDACTED} next`);
  });

  it('urlForRecord: an http(s) URL that does not parse is its scheme; an upper-case scheme is read as lower case', () => {
    expect(urlForRecord('http://[::1')).toBe('http:');
    expect(urlForRecord('HTTPS://Host.Example/x?y')).toBe('https://host.example/x');
  });

  it('base64: the match spans exactly the characters holding the key’s bits, the partly held ones at both ends too, at each alignment', () => {
    const key = 'sk-live-4f9a8b7c6d5e';
    const redactor = createRedactor([key]);
    // What follows the key starts with a bit 1 (é is c3 a9 in UTF-8) or 0 (a space).
    for (const next of ['\u00e9', ' '])
      for (const before of ['Bearer ', 'Bearer x', 'Bearer xy']) {
        const text = Buffer.from(`${before}${key}${next}`);
        const bytes = Buffer.concat([text, Buffer.from('..'.slice(0, (3 - (text.length % 3)) % 3))]); // no padding
        const first = Math.floor((before.length * 8) / 6);
        const end = Math.ceil(((before.length + key.length) * 8) / 6);
        for (const encoded of [bytes.toString('base64'), bytes.toString('base64url')]) {
          expect(redactor.text(encoded)).toBe(`${encoded.slice(0, first)}${REDACTED}${encoded.slice(end)}`);
        }
      }
  });

  it('a 3-character key is searched in base64 (4 characters it fixes), a 2-character one is not', () => {
    expect(createRedactor(['abc']).text('x YWJj y')).toBe(`x ${REDACTED} y`);
    expect(createRedactor(['ab']).text('x YWI y')).toBe('x YWI y');
  });

  it('hex keeps the leading zero of a byte under 0x10', () => {
    expect(createRedactor(['\tkey']).text('hex 096b6579 end')).toBe(`hex ${REDACTED} end`);
  });

  it('urlForRecord reads the scheme at the start only, with the characters a scheme may hold', () => {
    expect(urlForRecord('/a/b:c')).toBe('(not a URL)');
    expect(urlForRecord('git+ssh://host/x')).toBe('git+ssh:');
  });

  it('a 3-character key is searched in base64 only at the alignment where it fixes 4 characters', () => {
    // base64('xabcyy'): 'abc' from byte 1 fixes 3 characters only.
    expect(createRedactor(['abc']).text('eGFiY3l5')).toBe('eGFiY3l5');
  });

  it('percent escapes in either case: a non-ASCII key percent-encoded in lower case, every byte in upper case', () => {
    expect(createRedactor(['clé-secrète-0123456789']).text('k=cl%c3%a9-secr%c3%a8te-0123456789')).toBe(`k=${REDACTED}`);
    expect(createRedactor(['sk-9f8e7d6c5b']).text('k=%73%6B%2D%39%66%38%65%37%64%36%63%35%62')).toBe(`k=${REDACTED}`);
  });
});

