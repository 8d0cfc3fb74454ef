// One class per error across the package's entries: an error that any entry throws or returns
// is `instanceof` the classes the app imports from 'omnimedia', and the classes an entry
// re-exports are those same classes. Run from ESM (identity.mjs) and CommonJS (identity.cjs):
// tsup's CommonJS build does not split chunks, so an entry that bundled its own copy of
// errors.ts would throw errors of another class. Lists every deviation, then throws.
export async function checkIdentity({ omnimedia, tasks, redis, otel, proxy, aiSdk }, baseURL, runtime) {
  const failures = [];
  const caught = async (what, thunk) => {
    try {
      await thunk();
    } catch (error) {
      return error;
    }
    failures.push(`${what}: did not throw`);
    return undefined;
  };
  const expectClasses = (what, error, names) => {
    for (const name of names)
      if (!(error instanceof omnimedia[name])) failures.push(`${what}: ${error?.name ?? String(error)} is not instanceof omnimedia.${name}`);
  };
  const validation = ['ValidationError', 'OmniMediaError'];

  // omnimedia/tasks: its options, a task query's answer, and the classes it re-exports.
  expectClasses('new TasksClient({ timeout: -1 })', await caught('tasks', () => new tasks.TasksClient({ timeout: -1 })), validation);
  const tasksClient = new tasks.TasksClient({ baseURL });
  expectClasses('TasksClient.retrieve("..")', await caught('tasks', () => tasksClient.retrieve('..')), validation);
  expectClasses('TasksClient.retrieve(unknown)', await caught('tasks', () => tasksClient.retrieve('task_unknown_to_the_mock')), ['NotFoundError', 'APIError', 'OmniMediaError']);
  const mainError = await caught('omnimedia', () => new omnimedia.OmniMedia({ timeout: -1 }));
  for (const [name, value] of Object.entries(tasks)) {
    if (typeof value !== 'function' || !/Error$/.test(name)) continue;
    if (value !== omnimedia[name]) failures.push(`omnimedia/tasks re-exports another ${name} than omnimedia's`);
  }
  if (!(mainError instanceof tasks.ValidationError)) failures.push('a ValidationError of omnimedia is not instanceof omnimedia/tasks’ ValidationError');

  // omnimedia/redis: its options, checked before anything is sent to Redis.
  expectClasses('redisCoordination(not a client)', await caught('redis', () => redis.redisCoordination({}, {})), validation);
  expectClasses('redisCoordination(leaseMs: 1)', await caught('redis', () => redis.redisCoordination({ call: async () => null, duplicate: () => ({}) }, { leaseMs: 1 })), validation);

  // omnimedia/otel: its options.
  expectClasses('openTelemetry({ httpSpans: "yes" })', await caught('otel', () => otel.openTelemetry({ httpSpans: 'yes' })), validation);

  // omnimedia/proxy: its options, and the refusal an app's hook throws.
  expectClasses('createProxy({})', await caught('proxy', () => proxy.createProxy({})), validation);
  expectClasses('new ProxyDenied()', new proxy.ProxyDenied('no'), ['OmniMediaError']);

  // omnimedia/ai-sdk: its settings, and its client.
  expectClasses('createOmniMedia({ client: 1 })', await caught('ai-sdk', () => aiSdk.createOmniMedia({ client: 1 })), validation);
  if (!(aiSdk.createOmniMedia({ baseURL, apiKey: 'sk-test-packaging' }).client instanceof omnimedia.OmniMedia))
    failures.push('the ai-sdk provider’s client is not instanceof omnimedia.OmniMedia');

  if (failures.length > 0) throw new Error(`${runtime}: ${failures.length} cross-entry identity failures:\n  ${failures.join('\n  ')}`);
  return `ok ${runtime}: every entry's errors are omnimedia's classes`;
}
