// What a task query needs of zod, in a module of its own: a page that only follows tasks
// (omnimedia/tasks) loads the task schema, not every request schema (bundle.ts).
export { safeParse } from 'zod/mini';
export { parseResponse, toValidationIssues } from './parse.ts';
export { TaskResultSchema } from '../schemas/task-schema.ts';
