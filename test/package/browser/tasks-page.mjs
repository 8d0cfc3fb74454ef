// A page that imports only `omnimedia/tasks` (the keyless task client) and follows a task its
// server submitted, rendering each status as it comes. Bundled by esbuild (platform browser)
// from the consumer project; window.followTask(baseURL, taskId) runs it.
import { TasksClient, isTerminalStatus } from 'omnimedia/tasks';

window.followTask = async (baseURL, taskId) => {
  const list = document.body.appendChild(document.createElement('ol'));
  list.id = 'progress';
  const tasks = new TasksClient({ baseURL });
  const done = await tasks.wait(taskId, {
    initialDelay: 0,
    interval: 50,
    maxInterval: 200,
    timeout: 30_000,
    onProgress: (task, { polls }) => {
      const item = list.appendChild(document.createElement('li'));
      item.textContent = `${task.status} (query ${polls})`;
    },
  });
  const first = await tasks.retrieve(taskId);
  const watched = [];
  for await (const task of tasks.watch(taskId, { initialDelay: 0 })) watched.push(task.status);
  return {
    status: done.status,
    terminal: isTerminalStatus(done.status),
    retrieved: first.status,
    watched,
    rendered: [...list.children].map((li) => li.textContent),
    userAgent: navigator.userAgent,
  };
};
