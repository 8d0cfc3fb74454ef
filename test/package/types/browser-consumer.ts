// Type-checked in a project with lib DOM and NO @types/node ("types": []): the declarations
// must not mention Buffer or NodeJS.*, or this project would fail to compile.
import { OmniMedia, type TaskResult } from 'omnimedia';

const client = new OmniMedia({ baseURL: location.origin });

export async function show(taskId: string, out: HTMLElement): Promise<TaskResult> {
  const task = await client.tasks.wait(taskId, { onProgress: (t) => (out.textContent = t.status) });
  const file = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'a.png', { type: 'image/png' });
  const withKey = new OmniMedia({ baseURL: location.origin, apiKey: 'k', dangerouslyAllowBrowser: true });
  await withKey.uploads.image(file);
  return task;
}

// A browser app behind omnimedia/proxy: the whole client, no key.
export async function generateThroughProxy(file: File): Promise<TaskResult> {
  const page = new OmniMedia({ proxyURL: '/api/omnimedia' });
  return page.videos.generate({ prompt: 'the photo comes alive', images: [file] }).wait();
}
