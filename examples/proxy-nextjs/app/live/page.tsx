'use client';
// A live page: it submits a video, keeps the task id in the URL, and follows the task with
// useTask (omnimedia/react), which reads the task's events from the proxy's stream
// (app/api/omnimedia: GET /api/omnimedia/v1/tasks/{id}/events). A reload resumes from the URL;
// on the server the page renders the idle state and starts nothing. The form submits in
// onSubmit, not a <form action>: an action's state updates show only once it ends (no
// 'submitting', a button that stays enabled: two clicks were two paid videos), and a refusal
// thrown in it replaces the page with Next's error page.
import { OmniMedia } from 'omnimedia';
import { OmniMediaProvider, useTask } from 'omnimedia/react';
import { useRouter, useSearchParams } from 'next/navigation';
import { Suspense, useEffect, useRef, useState, type FormEvent } from 'react';

const client = new OmniMedia({ proxyURL: '/api/omnimedia' });

function Live() {
  const router = useRouter();
  const id = useSearchParams().get('task') ?? undefined;
  const [submitted, setSubmitted] = useState<ReturnType<typeof client.videos.generate>>();
  const [submitting, setSubmitting] = useState(false);
  const inFlight = useRef(false);
  // A submission of this page first; after a reload, the task in the URL.
  const { status, task, error } = useTask(submitted ?? id);
  // Every status this page showed, in order (the test reads it).
  const [seen, setSeen] = useState<string[]>([]);
  useEffect(() => setSeen((all) => (all.at(-1) === status ? all : [...all, status])), [status]);

  async function generate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    // One submission per click: none while one is in flight (a ref: set before any render).
    if (inFlight.current) return;
    inFlight.current = true;
    setSubmitting(true);
    const prompt = String(new FormData(event.currentTarget).get('prompt') ?? '');
    const pending = client.videos.generate({ prompt, seconds: 4 });
    setSubmitted(pending); // useTask shows 'submitting', then the task's statuses
    try {
      const { task_id } = await pending;
      router.replace(`/live?task=${task_id}`);
    } catch {
      // Refused (401 without a session, 403 for an origin, 429...): useTask's `error`, shown below.
    } finally {
      inFlight.current = false;
      setSubmitting(false);
    }
  }

  return (
    <main>
      <form onSubmit={generate}>
        <input name="prompt" defaultValue="a lighthouse at dawn" aria-label="prompt" />
        <button type="submit" disabled={submitting}>
          {submitting ? 'Submitting…' : 'Generate'}
        </button>
      </form>
      <p id="status">{status}</p>
      {task?.data?.[0]?.url && (
        <a id="result" href={task.data[0].url}>
          {task.data[0].url}
        </a>
      )}
      {error && <p id="error">{error.message}</p>}
      <ol id="seen">
        {seen.map((s, i) => (
          <li key={i}>{s}</li>
        ))}
      </ol>
    </main>
  );
}

export default function Page() {
  return (
    <OmniMediaProvider client={client}>
      <Suspense>
        <Live />
      </Suspense>
    </OmniMediaProvider>
  );
}
