// A download into a Blob keeps the media type the server sent (issue 26: `files.download(task)`
// gave Blobs with an empty `type`, so `URL.createObjectURL(blob)` or a FormData part lost it).
import { describe, expect, it } from 'vitest';
import { OmniMedia } from 'omnimedia';

const files: Record<string, [string, string | undefined]> = {
  'https://files.example.com/a.png': ['png bytes', 'image/png'],
  'https://files.example.com/b.mp4': ['mp4 bytes', 'video/mp4; codecs="avc1"'],
  'https://files.example.com/c': ['no type', undefined],
};
const client = new OmniMedia({
  baseURL: 'https://media.example.com',
  maxRetries: 0,
  fetch: async (url) => {
    const [body, type] = files[String(url)] ?? ['', undefined];
    // Bytes, not a string: a string body would bring its own text/plain type.
    return new Response(new TextEncoder().encode(body), { headers: type ? { 'content-type': type } : {} });
  },
});

describe('files.download into a Blob', () => {
  it("keeps the response's Content-Type as the Blob's type, for a URL and for each output of a task", async () => {
    const one = await client.files.download('https://files.example.com/a.png');
    expect(one.type).toBe('image/png');
    const task = { task_id: 't1', status: 'completed', data: Object.keys(files).map((url) => ({ url })) };
    const blobs = await client.files.download(task);
    // As the Fetch standard serializes a MIME type; none sent, none given.
    expect(blobs.map((b) => b.type)).toEqual(['image/png', 'video/mp4;codecs=avc1', '']);
    expect(await blobs[0]?.text()).toBe('png bytes');
  });
});
