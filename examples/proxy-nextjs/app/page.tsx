'use client';
// The page: the whole client, no key; its requests go to the proxy (app/api/omnimedia) with the
// page's cookies. Made at module top: while Next prerenders this page on the server there is no
// page to resolve '/api/omnimedia' against, and the client resolves it at its first request,
// which only the browser makes.
import { OmniMedia, type TaskResult } from 'omnimedia';
import { useState } from 'react';

const client = new OmniMedia({ proxyURL: '/api/omnimedia' });

interface Shown {
  status: string;
  url?: string | undefined;
  error?: string;
}

export default function Page() {
  const [shown, setShown] = useState<Shown>({ status: 'idle' });

  async function generate(form: FormData) {
    const prompt = String(form.get('prompt') ?? '');
    const image = form.get('image');
    setShown({ status: 'submitting' });
    const onProgress = (task: TaskResult) => setShown({ status: task.status });
    try {
      // A picked image (a File) is uploaded through the proxy, then animated; else an image.
      const task =
        image instanceof File && image.size > 0
          ? await client.videos.generate({ prompt, images: [image], seconds: 4 }).wait({ onProgress })
          : await client.images.generate({ model: 'omni-image', prompt }).wait({ onProgress });
      setShown({ status: task.status, url: task.data?.[0]?.url });
    } catch (error) {
      setShown({ status: 'error', error: error instanceof Error ? error.message : String(error) });
    }
  }

  return (
    <main>
      <form action={generate}>
        <input name="prompt" defaultValue="a lighthouse at dawn" aria-label="prompt" />
        <input name="image" type="file" accept="image/png,image/jpeg,image/webp" aria-label="image" />
        <button type="submit">Generate</button>
      </form>
      <p id="status">{shown.status}</p>
      {shown.url && (
        <a id="result" href={shown.url}>
          {shown.url}
        </a>
      )}
      {shown.error && <p id="error">{shown.error}</p>}
    </main>
  );
}
