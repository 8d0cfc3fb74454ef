/**
 * A request's own body (an upload's, not JSON), built anew for every attempt under the
 * attempt's deadline. Its own module, reached only through the requests that carry such a body
 * (uploads/send.ts), so that a client which sends none (`TasksClient`, a page's task client)
 * does not carry its building (67 B gzip of `omnimedia/tasks`, issue 40).
 */
import type { Exchange } from './exchange.ts';

/** One attempt's body, its headers, `release` to let go of its source after the attempt, and `sent` to tell how many bytes of it fetch took. */
export interface BuiltBody {
  body: BodyInit;
  headers?: Record<string, string>;
  release?: () => Promise<void>;
  sent?: () => number;
}

/** A request body other than JSON: see `HttpRequest.body`. */
export interface RequestBody {
  /** This attempt's body, built within the exchange: one that is done only after the exchange was cut short is let go of. */
  open(exchange: Exchange): Promise<BuiltBody>;
}

/**
 * The `RequestBody` of `build`, called once per attempt. Such a request does not follow
 * redirects (`redirect: 'error'`): fetch would tee the body to replay it on a 307/308, holding
 * every byte sent until the response, the whole file (measured: +file size of RSS on Node's
 * fetch). An upload endpoint has no reason to redirect.
 */
export function requestBody(build: () => Promise<BuiltBody>): RequestBody {
  return {
    open(exchange) {
      const building = build();
      return exchange.race(building).catch((error: unknown) => {
        // Cut short while the body was being built: the body that comes later (a file it
        // opened) is let go of, or it would stay open.
        building.then((late) => late.release?.(), () => {}).catch(() => {});
        throw error;
      });
    },
  };
}
