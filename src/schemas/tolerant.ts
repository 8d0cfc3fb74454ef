/**
 * Answers read tolerantly and typed truthfully (docs/spec-decisions.md). The spec
 * gives field types from samples only, so a real answer may carry `total_cost: "0.25"` or an
 * ISO `created_at`. Only what a caller cannot do without (the task id, a task's status, an
 * upload's url or id) is required; any other known field is read as its type where that loses
 * nothing (a numeric string as a number, a time in any unit or a date-time with its offset as
 * epoch seconds by time.ts, a number as its decimal string), else left out: never handed back
 * as the wrong type. Unknown fields
 * are kept as sent; a known field that is `null` reads as absent. The answer as parsed stays
 * reachable with `rawAnswer`, and what was read or left out is listed (`answerNotes`) for the
 * client to warn about once. Zod-free: the main entry exports `rawAnswer`.
 */
import { isRecord } from './rules.ts';
import { taskIdProblem } from './task-id.ts';
import { epochSeconds } from './time.ts';

/**
 * How a known field is read: a string, a number, a time (epoch seconds, whatever the unit or
 * form it came in: time.ts), or a list of objects with known fields of their own (an item
 * without its `id` field is left out).
 */
export type FieldRule = 's' | 'n' | 't' | { list: Fields; id?: string };
/** The known fields of an object. */
export type Fields = Record<string, FieldRule>;

/**
 * What an answer holds: the fields it cannot do without (`id`: an id by the task id rule, see
 * task-id.ts; `s`: a string), read strictly; its other known fields, read tolerantly;
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
  /** The field, the type that came and what became of it: what a warning is given once for. */
  key: string;
  /** e.g. `total_cost was "0.25": read as 0.25`, `attempts[].elapsed_s was true: left out`. */
  text: string;
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

/** `value` read as `rule` without loss, or `undefined` when it cannot be. */
function readAs(rule: 's' | 'n' | 't', value: unknown): unknown {
  if (rule === 's') return typeof value === 'number' ? String(value) : undefined;
  // A time of another unit or form is epoch seconds; seconds come back as sent.
  if (rule === 't') return epochSeconds(value);
  if (typeof value !== 'string' || !NUMERIC.test(value)) return undefined;
  const number = Number(value);
  // An integer past 2^53 would come out as another integer.
  return Number.isFinite(number) && (/[.e]/i.test(value) || Number.isSafeInteger(number)) ? number : undefined;
}

/** Reads the known fields of answers, noting what it read or left out. */
class Reader {
  readonly notes: AnswerNote[] = [];

  note(field: string, value: unknown, read?: unknown): void {
    this.notes.push({
      key: `${field} ${Array.isArray(value) ? 'list' : typeof value} ${read === undefined}`,
      text: `${field} was ${JSON.stringify(value).slice(0, 40)}: ${read === undefined ? 'left out' : `read as ${JSON.stringify(read)}`}`,
    });
  }

  /** The known fields of `input` read by `fields`, unknown ones kept, into a fresh object. */
  object(input: Record<string, unknown>, fields: Fields, prefix = ''): Record<string, unknown> {
    const out: Record<string, unknown> = { ...input };
    // for-in over our own shape (as the request rules read theirs), not Object.entries: an
    // array per field of every object read, 1.8 KB of a task query's allocations (a task's 14
    // fields, each attempt's 5, each output's 1); 0.02 µs against 1.3 µs for a task's fields.
    for (const key in fields) {
      const rule = fields[key] as FieldRule;
      const value = input[key];
      const field = prefix + key;
      let read: unknown = value;
      if (value === null || value === undefined) read = undefined;
      else if (typeof rule === 'object') {
        const { list, id } = rule;
        if (Array.isArray(value)) {
          // A loop, not flatMap: two lists a task, and flatMap made an array per item.
          const items: Record<string, unknown>[] = [];
          for (const item of value) {
            if (isRecord(item) && (id === undefined || typeof item[id] === 'string')) items.push(this.object(item, list, `${field}[].`));
            else this.note(`${field}[]${id && isRecord(item) ? `.${id}` : ''}`, id && isRecord(item) ? item[id] : item);
          }
          read = items;
        } else read = this.note(field, value);
      } else {
        // A time is read whatever its type: a number may be in ms.
        const typed = rule !== 't' && typeof value === (rule === 's' ? 'string' : 'number');
        if (!typed && (read = readAs(rule, value)) !== value) this.note(field, value, read);
      }
      // A known field absent from the answer has nothing to delete (most of a task's are absent).
      if (read === undefined) {
        if (key in out) delete out[key];
      } else out[key] = read;
    }
    return out;
  }
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
export function readAnswer(input: unknown, { required, fields, defaults }: AnswerShape): { value: Record<string, unknown> } | { problems: AnswerProblem[] } {
  if (!isRecord(input)) return { problems: [{ field: '', message: 'must be a JSON object' }] };
  const reader = new Reader();
  const value = reader.object(input, fields);
  const problems: AnswerProblem[] = [];
  for (const field in required) {
    const rule = required[field];
    let given = value[field];
    const fallback = defaults?.[field];
    if (typeof given !== 'string' && fallback !== undefined) {
      if (given != null) reader.note(field, given, fallback);
      given = value[field] = fallback;
    }
    // An id sent as a whole number reads as its decimal string, which is what a URL carries.
    if (rule === 'id' && Number.isSafeInteger(given)) reader.note(field, given, (given = value[field] = String(given)));
    const message = rule === 'id' ? taskIdProblem(given) : typeof given === 'string' ? undefined : given == null ? 'is required' : 'must be a string';
    if (message) problems.push({ field, message });
  }
  if (problems.length > 0) return { problems };
  Object.defineProperty(value, RAW, { value: input });
  if (reader.notes.length > 0) Object.defineProperty(value, NOTES, { value: reader.notes });
  return { value };
}
