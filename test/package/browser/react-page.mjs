// A React 19 page of a browser app behind `omnimedia/proxy` (react-server.mjs): it submits a
// video with the whole client, keeps the task id in the URL, and follows the task with
// `useTask` from `omnimedia/react`, so that a reload resumes it (`useTask(idFromUrl)`). Bundled
// by esbuild (platform browser) from the consumer project, React from npm.
import { createElement as h, StrictMode, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { OmniMedia } from 'omnimedia';
import { OmniMediaProvider, useTask } from 'omnimedia/react';

const client = new OmniMedia({ proxyURL: '/api/omnimedia' });

function Status({ task }) {
  const { status, done, error, task: latest } = useTask(task);
  return h(
    'section',
    null,
    h('p', { id: 'status' }, status),
    h('p', { id: 'done' }, String(done)),
    latest?.data?.[0]?.url ? h('a', { id: 'result', href: latest.data[0].url }, latest.data[0].url) : null,
    error ? h('p', { id: 'error' }, `${error.name}: ${error.message}`) : null,
  );
}

function App() {
  // Resuming after a reload: the id from the URL.
  const [task, setTask] = useState(() => new URL(location.href).searchParams.get('task') ?? undefined);
  const start = () => {
    const pending = client.videos.generate({ prompt: 'a lighthouse at dawn', seconds: 4 });
    pending.then(({ task_id }) => history.replaceState(null, '', `?task=${task_id}`));
    setTask(pending);
  };
  return h('main', null, h('button', { id: 'start', onClick: start }, 'Generate'), h(Status, { task }), h(Status, { task }));
}

createRoot(document.getElementById('root')).render(h(StrictMode, null, h(OmniMediaProvider, { client }, h(App))));
