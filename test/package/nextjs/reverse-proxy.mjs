// A small reverse proxy in front of an app, as nginx or a platform's router sits in front of a
// deployed one: every request goes on to the app (on another host and port) with the public
// Host the browser sent (nginx's `proxy_set_header Host $http_host`), nothing else added, both
// bodies streamed.
import { createServer, request } from 'node:http';

/** Listen on a free loopback port; resolves with its port and a close(). */
export async function startReverseProxy(target) {
  const upstream = new URL(target);
  const server = createServer((req, res) => {
    const forwarded = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    req.pipe(forwarded);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: server.address().port,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))),
  };
}
