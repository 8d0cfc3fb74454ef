// The page of test/react/chromium.test.ts, bundled by esbuild from the sources (the browser
// build's twins) with React 19: `window.omni` renders what a test asks for, and each component
// writes its `useTask` state into the DOM (`#<name>` with `data-status`, `data-error`).
import { Activity, createElement, useState, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { OmniMedia } from 'omnimedia';
import { OmniMediaProvider, useTask, type TaskInput } from 'omnimedia/react';

const client = new OmniMedia({ proxyURL: '/api/omnimedia' });
const root = createRoot(document.getElementById('root') as HTMLElement);

function Status(props: { name: string; task: TaskInput }): ReactNode {
  const state = useTask(props.task);
  return createElement('p', { id: props.name, 'data-status': state.status, 'data-error': state.error?.name ?? '' }, `${state.status} ${state.error?.name ?? ''}`);
}

let toggle: (() => void) | undefined;
let addSecond: (() => void) | undefined;

/** A follower inside `<Activity>` (hidden and shown by `toggle`), and a second one `addSecond` mounts. */
function Hideable(props: { taskId: string }): ReactNode {
  const [visible, setVisible] = useState(true);
  const [second, setSecond] = useState(false);
  toggle = () => setVisible((v) => !v);
  addSecond = () => setSecond(true);
  return createElement(
    'div',
    null,
    createElement(Activity, { mode: visible ? 'visible' : 'hidden', children: createElement(Status, { name: 'hideable', task: props.taskId }) }),
    second ? createElement(Status, { name: 'second', task: props.taskId }) : null,
  );
}

const render = (node: ReactNode) => root.render(createElement(OmniMediaProvider, { client }, node));

Object.assign(window, {
  omni: {
    follow: (taskId: string) => render(createElement(Status, { name: 'one', task: taskId })),
    submit: () => render(createElement(Status, { name: 'one', task: client.images.generate({ model: 'omni-image', prompt: 'a lighthouse' }) })),
    activity: (taskId: string) => render(createElement(Hideable, { taskId })),
    toggle: () => toggle?.(),
    addSecond: () => addSecond?.(),
  },
});
document.body.dataset.ready = '1';
