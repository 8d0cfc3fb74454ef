
import { TasksClient } from 'omnimedia/tasks';
import { useTask, OmniMediaProvider } from 'omnimedia/react';
import { createElement as h } from 'react';
import { createRoot } from 'react-dom/client';
import { OmniMedia } from 'omnimedia';
const client = new OmniMedia({ proxyURL: '/api/omnimedia' });
const tasks = new TasksClient({ proxyURL: '/api/omnimedia' });
function App() { const s = useTask(undefined); return h('div', null, String(s.status), String(!!client)); }
createRoot(document.getElementById('root')!).render(h(OmniMediaProvider, { client: tasks }, h(App)));
