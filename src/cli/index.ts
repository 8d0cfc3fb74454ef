#!/usr/bin/env node
// The `omnimedia` bin. Built by tsup into dist/cli.js; imports the library as `omnimedia`
// (the package's own public entry), so the CLI uses nothing the public API does not offer.
import { fileURLToPath } from 'node:url';
import { invocationName } from './invocation.ts';
import { main } from './main.ts';

const controller = new AbortController();
let interrupts = 0;
const onSignal = () => {
  interrupts++;
  // First Ctrl-C: stop waiting and say how to resume. A second one: leave at once.
  if (interrupts > 1) process.exit(130);
  controller.abort(new Error('interrupted'));
};
process.on('SIGINT', onSignal);
// `omnimedia ... | head -1`: a reader that left early is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}
process.on('SIGTERM', onSignal);

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  signal: controller.signal,
  command: invocationName(process.env, fileURLToPath(import.meta.url)),
});
// Exit once both streams have flushed (pipes are asynchronous on some platforms), so no output
// is lost and an idle keep-alive socket cannot hold the process open.
process.exitCode = code;
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
