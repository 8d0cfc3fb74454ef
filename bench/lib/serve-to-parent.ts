// A bench server in a forked process: listen on a free loopback port, tell the parent which
// (over IPC), and exit when the parent lets go.
import type { Server } from 'node:http';

export function serveToParent(server: Server): void {
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
  });
  process.on('disconnect', () => server.close(() => process.exit(0)));
}
