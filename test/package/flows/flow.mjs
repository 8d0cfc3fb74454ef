// The short real flow every runtime runs against the mock service (ESM: Node, Deno, Bun; the
// browser page bundles it too). It takes the package as an argument so the CJS flow and the
// page share it. Throws on any deviation; returns a one-line summary.
export async function runFlow(omnimedia, baseURL, runtime) {
  const { OmniMedia, ValidationError, OmniMediaError, AuthenticationError, isTerminalStatus } = omnimedia;
  const check = (condition, what) => {
    if (!condition) throw new Error(`${runtime}: ${what}`);
  };
  const fast = { initialDelay: 0, interval: 50, maxInterval: 200, timeout: 30_000 };

  // Default export and named export are the same class.
  check(omnimedia.default === OmniMedia, 'default export is OmniMedia');

  // A keyed client submits and waits.
  const client = new OmniMedia({ baseURL, apiKey: 'sk-test-packaging' });
  const submission = await client.images.generate({ model: 'omni-image', prompt: 'a lighthouse at dawn' });
  check(typeof submission.task_id === 'string' && submission.task_id.length > 0, 'submission has a task id');
  const done = await client.tasks.wait(submission.task_id, fast);
  check(done.status === 'completed', `task completed (got ${done.status})`);

  // A keyless client reads the same task (the query endpoint is public).
  const keyless = new OmniMedia({ baseURL });
  const read = await keyless.tasks.retrieve(submission.task_id);
  check(isTerminalStatus(read.status), 'keyless retrieve sees the finished task');

  // Local validation: no request, typed error.
  const invalid = await client.images.generate({ model: 'omni-image', prompt: 'x', size: '1000x1000' }).catch((e) => e);
  check(invalid instanceof ValidationError && invalid instanceof OmniMediaError, 'bad size is a ValidationError');
  check(invalid.issues?.[0]?.path === 'size', 'the issue names the field');

  // A keyless submission fails locally.
  const noKey = await keyless.images.generate({ model: 'omni-image', prompt: 'x' }).catch((e) => e);
  check(noKey instanceof AuthenticationError, 'keyless submission is an AuthenticationError');

  return `ok ${runtime}: task ${submission.task_id} ${done.status}`;
}

// omnimedia/proxy's fetch-style handler in this runtime, in front of the mock: a proxied client
// (no key) submits and waits through it, called directly (no server needed).
export async function runProxyFlow(omnimedia, proxyEntry, baseURL, runtime) {
  const proxy = proxyEntry.createProxy({ apiKey: 'sk-test-packaging', baseURL, authorize: () => ({ id: 'packaging' }) });
  const client = new omnimedia.OmniMedia({
    proxyURL: 'http://app.test/',
    fetch: (input, init) => proxy.handler(new Request(input, init)),
  });
  const done = await client.images.generate({ model: 'omni-image', prompt: 'a fox' }).wait({ initialDelay: 0, interval: 50, maxInterval: 200, timeout: 30_000 });
  if (done.status !== 'completed') throw new Error(`${runtime}: proxied task ended ${done.status}`);
  const refused = await proxy.handler(new Request('http://app.test/v1/tasks/..%2Fx'));
  if (refused.status !== 400) throw new Error(`${runtime}: an encoded slash in a task id got ${refused.status}`);
  return `${runtime}: omnimedia/proxy ok (${done.task_id} through the proxy)`;
}
