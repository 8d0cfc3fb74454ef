/**
 * The studio's page (built by scripts/build-studio.ts into dist/studio/app.js): the form, and
 * the gallery of every submission the studio's journal holds. Every call goes through the
 * studio's proxy (`/api/omnimedia`): the page's client has no key, and follows tasks on the
 * proxy's events route (`useTask`), never by polling.
 */
import { OmniMedia } from 'omnimedia';
import { OmniMediaProvider } from 'omnimedia/react';
import { TasksClient } from 'omnimedia/tasks';
import { createElement as h, useCallback, useEffect, useState, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import type { StudioJob } from '../journal.ts';
import type { CodeTarget } from './code.ts';
import { StudioForm } from './form.ts';
import { Card } from './gallery.ts';
import { emptyForm, formOf, type FormState } from './params.ts';

const PROXY_URL = '/api/omnimedia';
const client = new OmniMedia({ proxyURL: PROXY_URL });
const tasks = new TasksClient({ proxyURL: PROXY_URL });

/** What `/studio/jobs` answers. */
interface JobList {
  jobs: StudioJob[];
  baseURL?: string;
  mock: boolean;
}

function App(): ReactNode {
  const [list, setList] = useState<JobList>({ jobs: [], mock: false });
  const [problem, setProblem] = useState<string | undefined>();
  const [form, setForm] = useState<FormState>(emptyForm());
  const load = useCallback(async () => {
    try {
      const answer = await fetch('/studio/jobs', { headers: { accept: 'application/json' } });
      if (!answer.ok) throw new Error(`the studio answered ${answer.status}: ${await answer.text()}`);
      setList((await answer.json()) as JobList);
      setProblem(undefined);
    } catch (error) {
      setProblem((error as Error).message);
    }
  }, []);
  useEffect(() => void load(), [load]);
  const target: CodeTarget = { baseURL: list.baseURL };
  const runAgain = (job: StudioJob) => {
    setForm(formOf(job.op, job.params));
    document.getElementById('f-prompt')?.focus();
    window.scrollTo({ top: 0 });
  };
  const shown = list.jobs.filter((job) => job.state !== 'refused');
  return h(
    OmniMediaProvider,
    { client: tasks },
    h(
      'header',
      null,
      h('h1', null, 'omnimedia studio'),
      list.mock ? h('span', { className: 'badge' }, `mock service: ${list.baseURL ?? ''}`) : null,
    ),
    h(
      'main',
      null,
      h('section', { className: 'compose', 'aria-label': 'New request' }, h(StudioForm, { client, form, setForm, onSubmitted: () => void load() })),
      h(
        'section',
        { className: 'gallery', 'aria-label': 'Gallery' },
        h('h2', null, 'Gallery'),
        problem ? h('p', { className: 'problem', role: 'alert' }, problem) : null,
        shown.length === 0 ? h('p', { className: 'empty' }, 'Nothing yet: what you generate appears here, and stays (the studio keeps it in its directory).') : null,
        h('div', { className: 'cards' }, shown.map((job) => h(Card, { key: job.id, job, target, onRunAgain: runAgain }))),
      ),
    ),
  );
}

createRoot(document.getElementById('root') as HTMLElement).render(h(App));
