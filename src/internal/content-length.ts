/** A header that may come as one string or several (Node's `IncomingMessage.headers`). */
type HeaderValue = string | readonly string[] | null | undefined;

/**
 * The byte length a `Content-Length` header declares, when it is a plain decimal number;
 * `undefined` otherwise (absent, a list, garbage). With `encoding` (the `Content-Encoding`
 * header), `undefined` as soon as one is set: fetch hands over decoded bytes, so the header
 * then counts the wrong ones.
 */
export function contentLength(value: HeaderValue, encoding?: HeaderValue): number | undefined {
  if (encoding) return undefined;
  const text = Array.isArray(value) ? value[0] : value;
  return typeof text === 'string' && /^\d+$/.test(text) ? Number(text) : undefined;
}
