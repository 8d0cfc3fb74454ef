// Starts the mock service from the INSTALLED tarball (`omnimedia/testing`) on a free loopback
// port, prints `MOCK_URL=<url>` once listening, and closes on SIGTERM/SIGINT. Run from a
// consumer project (run.sh does), so it resolves the packed package, not the source tree.
import { startMockServer } from 'omnimedia/testing';

const mock = await startMockServer({ port: 0 });
const url = String(mock.url ?? mock.baseURL ?? `http://127.0.0.1:${mock.port}`);
console.log(`MOCK_URL=${url}`);
const stop = async () => {
  await (mock.close ?? mock.stop).call(mock);
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
