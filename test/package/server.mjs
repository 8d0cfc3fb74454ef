// Starts the mock service from the INSTALLED tarball (`omnimedia/testing`) on a free loopback
// port, prints `MOCK_URL=<url>` once listening, and closes on SIGTERM/SIGINT. Run from a
// consumer project (run.sh does), so it resolves the packed package, not the source tree.
import { startMockServer } from 'omnimedia/testing';

// Short phases: the flows prove the package works in each runtime, not the mock's timing.
const server = await startMockServer({
  port: 0,
  durations: { pending: 50, image: 200, imageEdit: 200, video: 300, videoEdit: 300 },
});
console.log(`MOCK_URL=${server.url}`);
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
