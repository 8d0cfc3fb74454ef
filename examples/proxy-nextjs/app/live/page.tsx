'use client';
// A live page: it submits a video, keeps the task id in the URL, and follows the task with
// useTask (omnimedia/react), which reads the task's events from the proxy's stream
// (app/api/omnimedia: GET /api/omnimedia/v1/tasks/{id}/events). A reload resumes from the URL;
// on the server the page renders the idle state and starts nothing.
import { OmniMedia } from 'omnimedia';
import { OmniMediaProvider, useTask } from 'omnimedia/react';
import { useRouter, useSearchParams } from 'next/navigation';
import { Suspense, useEffect, useState } from 'react';

const client = new OmniMedia({ proxyURL: '/api/omnimedia' });

function Live() {
  const router = useRouter();
  const id = useSearchParams().get('task') ?? undefined;
  const [submitted, setSubmitted] = useState<ReturnType<typeof client.videos.generate>>();
  const { status, task, error } = useTask(id ?? submitted);
  // Every status this page showed, in order (the test reads it).
  const [seen, setSeen] = useState<string[]>([]);
  useEffect(() => setSeen((all) => (all.at(-1) === status ? all : [...all, status])), [status]);

  async function generate(form: FormData) {
    const pending = client.videos.generate({ prompt: String(form.get('prompt') ?? ''), seconds: 4 });
    setSubmitted(pending);
    const { task_id } = await pending;
    router.replace(`/live?task=${task_id}`);
  }

  return (
    <main>
      <form action={generate}>
        <input name="prompt" defaultValue="a lighthouse at dawn" aria-label="prompt" />
        <button type="submit">Generate</button>
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
