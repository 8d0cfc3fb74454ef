// Response builders of the mock. The spec does not give the error body's shape; the mock
// answers `{ "error": { "code", "message", "param"? } }`, the shape most JSON APIs use, so
// a client that reads `error.message` (ours does) shows the service's own words.

/** Headers a browser page needs to call the mock from another origin. */
export const CORS_HEADERS: Readonly<Record<string, string>> = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'retry-after, x-request-id, content-length, content-type',
};

let requestCounter = 0;

/** A fresh `x-request-id`, so clients can show one in error reports. */
export function requestId(): string {
  requestCounter += 1;
  return `req_mock_${requestCounter.toString(36).padStart(6, '0')}`;
}

export function jsonResponse(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...CORS_HEADERS, 'x-request-id': requestId(), ...headers },
  });
}

/** Error codes the mock uses in its error bodies. */
export type MockErrorCode =
  | 'invalid_request'
  | 'too_large'
  | 'invalid_api_key'
  | 'insufficient_balance'
  | 'model_not_allowed'
  | 'not_found'
  | 'method_not_allowed'
  | 'rate_limited'
  | 'internal_error'
  | 'no_provider_available';

export function errorResponse(
  status: number,
  code: MockErrorCode,
  message: string,
  options: { param?: string | undefined; headers?: Record<string, string> } = {},
): Response {
  const error = { code, message, ...(options.param !== undefined ? { param: options.param } : {}) };
  return jsonResponse({ error }, status, options.headers);
}

/** The answer to a CORS preflight: any method the mock serves, the headers clients send. */
export function preflightResponse(request: Request): Response {
  const asked = request.headers.get('access-control-request-headers');
  return new Response(null, {
    status: 204,
    headers: {
      ...CORS_HEADERS,
      'access-control-allow-methods': 'GET, POST, OPTIONS',
      'access-control-allow-headers': asked ?? 'authorization, content-type',
      'access-control-max-age': '600',
      vary: 'access-control-request-headers',
    },
  });
}

/** File bytes (an upload or a result), with the headers a download needs. */
export function fileResponse(bytes: Uint8Array, contentType: string, method: string): Response {
  return new Response(method === 'HEAD' ? null : (bytes as Uint8Array<ArrayBuffer>), {
    status: 200,
    headers: {
      'content-type': contentType,
      'content-length': String(bytes.byteLength),
      'cache-control': 'no-store',
      ...CORS_HEADERS,
    },
  });
}
