/**
 * Answers read tolerantly and typed truthfully (README, "Spec gaps and our decisions"). The spec
 * gives field types from samples only, so a real answer may carry `total_cost: "0.25"` or an
 * ISO `created_at`. Only what a caller cannot do without (the task id, a task's status, an
 * upload's url or id) is required; any other known field is read as its type where that loses
 * nothing (a numeric string as a number, a date-time with its offset as epoch seconds, a number
 * as its decimal string), else left out: never handed back as the wrong type. Unknown fields
 * are kept as sent; a known field that is `null` reads as absent. The answer as parsed stays
 * reachable with `rawAnswer`, and what was read or left out is listed (`answerNotes`) for the
 * client to warn about once. Zod-free: the main entry exports `rawAnswer`.
 */
import { taskIdProblem } from './task-id.ts';

/**
 * How a known field is read: a string, a number, a time (a number of epoch seconds), or a list
 * of objects with known fields of their own (an item without its `id` field is left out).
 */
export type FieldRule = 's' | 'n' | 't' | { list: Fields; id?: string };
/** The known fields of an object. */
export type Fields = Record<string, FieldRule>;

/**
 * What an answer holds: the fields it cannot do without (`id`: a non-empty string, a task id
 * by its rule; `s`: a string), read strictly; its other known fields, read tolerantly;
 * `defaults` for a required field that is absent, `null` or not a string (a submission's
 * status: `pending`).
 */
export interface AnswerShape {
  required: Record<string, 'id' | 's'>;
  fields: Fields;
  defaults?: Record<string, string>;
}

/** What tolerant reading did with one field: read it as its type, or left it out. */
export interface AnswerNote {
  /** The field, e.g. `total_cost` or `attempts[].elapsed_s`. */
  field: string;
  /** What came: `a string ("0.25")`. */
  found: string;
  /** `read as 0.25`, or `left out`. */
  outcome: string;
  /** The field, the type that came and what became of it: what a warning is given once for. */
  key: string;
}

const RAW = Symbol.for('omnimedia.rawAnswer');
const NOTES = Symbol.for('omnimedia.answerNotes');

/**
 * The answer as the service sent it (its JSON, as parsed), behind a task, submission or upload
 * record the SDK read: the typed result leaves out a known field of an unexpected type, and
 * this keeps it. `undefined` for an object the SDK did not read (a copy, a record from JSON).
 *
 * @example
 * ```ts
 * const task = await client.tasks.retrieve('task_123');
 * if (task.total_cost === undefined) console.log('as sent:', (rawAnswer(task) as { total_cost?: unknown })?.total_cost);
 * ```
 */
export function rawAnswer(value: object): unknown {
  return (value as { [RAW]?: unknown })[RAW];
}

/** What tolerant reading did with the fields of `value` (nothing for an answer read as sent). */
export function answerNotes(value: unknown): readonly AnswerNote[] {
  return (value as { [NOTES]?: AnswerNote[] } | undefined)?.[NOTES] ?? [];
}

const NUMERIC = /^-?(0|[1-9]\d*)(\.\d+)?(e[+-]?\d+)?$/i;
// A date-time with its offset, to the millisecond: the one date string that names one instant
// exactly (no offset is local time, wherever that is; more digits would be rounded away).
const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?(Z|[+-]\d\d:\d\d)$/i;

const describe = (value: unknown): string =>
  Array.isArray(value) ? 'a list' : typeof value === 'string' ? `a string (${JSON.stringify(value.slice(0, 40))})` : `${typeof value === 'object' ? 'an' : 'a'} ${typeof value} (${JSON.stringify(value)?.slice(0, 40)})`;

const note = (notes: AnswerNote[], field: string, value: unknown, read?: unknown): void => {
  const outcome = read === undefined ? 'left out' : `read as ${JSON.stringify(read)}`;
  notes.push({ field, found: describe(value), outcome, key: `${field} ${Array.isArray(value) ? 'list' : typeof value} ${read === undefined}` });
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** `value` read as `rule` without loss, or `undefined` when it cannot be. */
function readAs(rule: 's' | 'n' | 't', value: unknown): unknown {
  if (rule === 's') return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  if (NUMERIC.test(value)) {
    const number = Number(value);
    // An integer past 2^53 would come out as another integer.
    return Number.isFinite(number) && (/[.e]/i.test(value) || Number.isSafeInteger(number)) ? number : undefined;
  }
  return rule === 't' && INSTANT.test(value) ? Date.parse(value) / 1000 : undefined;
}

/** The known fields of `input` read by `fields`, unknown ones kept, into a fresh object. */
function readObject(input: Record<string, unknown>, fields: Fields, notes: AnswerNote[], prefix: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...input };
  for (const [key, rule] of Object.entries(fields)) {
    const value = input[key];
    if (value === null || value === undefined) {
      delete out[key];
      continue;
    }
    const field = prefix + key;
    if (typeof rule === 'object') {
      if (!Array.isArray(value)) {
        delete out[key];
        note(notes, field, value);
        continue;
      }
      const { list, id } = rule;
      out[key] = value.flatMap((item) => {
        if (isRecord(item) && (id === undefined || typeof item[id] === 'string')) return [readObject(item, list, notes, `${field}[].`)];
        const without = id !== undefined && isRecord(item);
        note(notes, `${field}[]${without ? `.${id}` : ''}`, without ? item[id] : item);
        return [];
      });
      continue;
    }
    if (typeof value === (rule === 's' ? 'string' : 'number')) continue;
    const read = readAs(rule, value);
    if (read === undefined) delete out[key];
    else out[key] = read;
    note(notes, field, value, read);
  }
  return out;
}

/** Where an answer fell short of what it cannot do without. */
export interface AnswerProblem {
  field: string;
  message: string;
}

/**
 * Read an answer by its shape: the typed object, with the raw answer and the notes behind it,
 * or the problems of a body that lacks what it cannot do without.
 */
export function readAnswer(input: unknown, { required, fields, defaults = {} }: AnswerShape): { value: Record<string, unknown> } | { problems: AnswerProblem[] } {
  if (!isRecord(input)) return { problems: [{ field: '', message: `must be a JSON object, not ${input === null ? 'null' : Array.isArray(input) ? 'a list' : typeof input}` }] };
  const notes: AnswerNote[] = [];
  const value = readObject(input, fields, notes, '');
  const problems: AnswerProblem[] = [];
  for (const [field, rule] of Object.entries(required)) {
    let given = value[field];
    const fallback = defaults[field];
    if (typeof given !== 'string' && fallback !== undefined) {
      if (given !== undefined && given !== null) note(notes, field, given, fallback);
      given = value[field] = fallback;
    }
    // An id sent as a whole number reads as its decimal string, which is what a URL carries.
    if (rule === 'id' && typeof given === 'number' && Number.isSafeInteger(given)) {
      note(notes, field, given, (given = value[field] = String(given)));
    }
    const problem =
      field === 'task_id'
        ? taskIdProblem(given)
        : given === undefined || given === null
          ? 'is required'
          : typeof given !== 'string' || (rule === 'id' && given === '')
            ? `must be a ${rule === 'id' ? 'non-empty ' : ''}string`
            : undefined;
    if (problem) problems.push({ field, message: problem });
  }
  if (problems.length > 0) return { problems };
  Object.defineProperty(value, RAW, { value: input });
  if (notes.length > 0) Object.defineProperty(value, NOTES, { value: notes });
  return { value };
}
