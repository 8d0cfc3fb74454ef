// The Worker the proxy's attack tests run in workerd (helpers.ts, mode 'workerd'): the proxy
// with the options given as JSON in the OPTIONS binding, the session cookie's check of
// helpers.ts `authorizeBySession`, and a logger that writes every line (the test reads them).
import { createProxy, type OmniMediaProxy, type ProxyOptions } from 'omnimedia/proxy';

interface Env {
  OPTIONS: string;
  SESSION: string;
}

const line =
  (level: string) =>
  (message: string, ...args: unknown[]) =>
    console.log(`${level} ${message} ${args.map(String).join(' ')}`);

let proxy: OmniMediaProxy | undefined;

export default {
  fetch(request: Request, env: Env): Promise<Response> {
    proxy ??= createProxy({
      ...(JSON.parse(env.OPTIONS) as Partial<ProxyOptions>),
      authorize: (request) => ((request.headers.get('cookie') ?? '').includes(env.SESSION) ? { id: 'alice' } : null),
      logger: { error: line('error'), warn: line('warn'), info: line('info'), debug: line('debug') },
    });
    return proxy.handler(request);
  },
};
