/**
 * The gallery: one card per submission, newest first. A running task's card follows it with
 * `useTask` (the proxy's events route: no task query from the page); a finished one shows what
 * the journal kept. Results come from the studio (`/studio/results/<task id>/<k>`, the files in
 * DIR/results/), not from the service's expiring URLs.
 */
import { createElement as h, useEffect, useState, type ReactNode } from 'react';
import type { TaskResult } from 'omnimedia';
import { useTask } from 'omnimedia/react';
import type { StudioJob } from '../journal.ts';
import { batchCommandOf, batchLineOf, cliOf, typescriptOf, type CodeTarget } from './code.ts';

const TERMINAL = new Set(['completed', 'failed', 'cancelled', 'canceled', 'expired']);

/** Seconds since `since`, every second while `running`. */
function useElapsed(since: number, running: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [running]);
  return Math.max(0, Math.round((now - since) / 1000));
}

/** A parameter list: every field of the body but the prompt and the uploads' URLs. */
function parameters(job: StudioJob): string {
  const shown = Object.entries(job.params).filter(([name]) => !['prompt', 'messages', 'image', 'mask', 'input_video', 'callback_url'].includes(name));
  return shown.map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`).join(' · ');
}

const promptOf = (job: StudioJob): string => {
  if (typeof job.params.prompt === 'string') return job.params.prompt;
  const content = (job.params.messages as { content?: unknown }[] | undefined)?.[0]?.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? (content as { type?: string; text?: string }[]).filter((p) => p.type === 'text').map((p) => p.text).join('\n') : '';
};

function Copy({ label, text, id }: { label: string; text: string; id: string }): ReactNode {
  const [copied, setCopied] = useState(false);
  return h(
    'div',
    { className: 'code' },
    h('label', { htmlFor: id }, label),
    h('textarea', { id, readOnly: true, rows: Math.min(8, text.split('\n').length + 1), value: text, spellCheck: false }),
    h(
      'button',
      {
        type: 'button',
        onClick: () => {
          void navigator.clipboard?.writeText(text).then(() => setCopied(true), () => setCopied(false));
        },
      },
      copied ? 'Copied' : `Copy ${label}`,
    ),
  );
}

export interface CardProps {
  job: StudioJob;
  target: CodeTarget;
  onRunAgain: (job: StudioJob) => void;
}

/** One submission: its media, prompt, parameters, task id, cost, times, download, run again, copy as code. */
export function Card({ job, target, onRunAgain }: CardProps): ReactNode {
  const follow = job.state === 'running' ? job.task_id : undefined;
  const live = useTask(follow);
  const task: TaskResult | undefined = live.task ?? job.task;
  const status = job.state === 'unknown' ? 'unknown' : job.state === 'refused' ? `refused (${job.status ?? '?'})` : (task?.status ?? (follow ? 'submitted' : job.state));
  const running = !TERMINAL.has(status) && (job.state === 'running' || job.state === 'submitting');
  const elapsed = useElapsed(job.submitted_at, running);
  const outputs = status === 'completed' ? (task?.data ?? []) : [];
  const video = job.op.startsWith('videos');
  const prompt = promptOf(job);
  const base = `/studio/results/${job.task_id ?? ''}`;
  const name = `card-${job.id}`;
  return h(
    'article',
    { className: `card ${status}`, 'aria-labelledby': `${name}-prompt`, 'data-task': job.task_id ?? '', 'data-status': status },
    h(
      'div',
      { className: 'media' },
      outputs.length > 0
        ? outputs.map((_, k) =>
            video
              ? h('video', { key: k, src: `${base}/${k}`, controls: true, preload: 'metadata', 'aria-label': `Video ${k + 1}: ${prompt}` })
              : h('img', { key: k, src: `${base}/${k}`, alt: `Image ${k + 1} of ${outputs.length}: ${prompt}`, loading: 'lazy' }),
          )
        : h('div', { className: 'placeholder', role: 'status', 'aria-live': 'polite' }, running ? `${status}…` : status),
    ),
    h('h3', { id: `${name}-prompt`, className: 'prompt' }, prompt || '(no prompt)'),
    h(
      'dl',
      null,
      h('dt', null, 'Status'),
      h('dd', { className: 'status' }, status),
      h('dt', null, 'Operation'),
      h('dd', null, job.op),
      parameters(job) ? [h('dt', { key: 'p' }, 'Parameters'), h('dd', { key: 'pv' }, parameters(job))] : null,
      h('dt', null, 'Task'),
      h('dd', { className: 'task-id' }, job.task_id ?? (job.state === 'unknown' ? 'sent when the studio stopped: not sent again' : '—')),
      h('dt', null, 'Elapsed'),
      h('dd', { className: 'elapsed' }, task?.total_elapsed_s !== undefined && !running ? `${task.total_elapsed_s} s` : `${elapsed} s`),
      h('dt', null, 'Attempts'),
      h('dd', null, String(task?.attempt_count ?? 0)),
      task?.total_cost !== undefined ? [h('dt', { key: 'c' }, 'Cost'), h('dd', { key: 'cv', className: 'cost' }, String(task.total_cost))] : null,
      task?.fail_reason ? [h('dt', { key: 'f' }, 'Failed'), h('dd', { key: 'fv' }, task.fail_reason)] : null,
      job.error ? [h('dt', { key: 'e' }, 'Download'), h('dd', { key: 'ev' }, job.error)] : null,
    ),
    h(
      'div',
      { className: 'actions' },
      outputs.map((_, k) => h('a', { key: k, href: `${base}/${k}?download`, download: '' }, outputs.length > 1 ? `Download ${k + 1}` : 'Download')),
      h('button', { type: 'button', onClick: () => onRunAgain(job) }, 'Run again with changes'),
    ),
    h(
      'details',
      { className: 'copy' },
      h('summary', null, 'Copy as code'),
      h(Copy, { label: 'TypeScript', id: `${name}-ts`, text: typescriptOf(job.op, job.params, target) }),
      h(Copy, { label: 'CLI', id: `${name}-cli`, text: cliOf(job.op, job.params, target) }),
      h(Copy, { label: 'Batch JSONL', id: `${name}-jsonl`, text: batchLineOf(job.id, job.op, job.params) }),
      h(Copy, { label: 'Batch command', id: `${name}-batch`, text: batchCommandOf(target) }),
    ),
  );
}
