import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/index.ts';
import { IMAGE_UPLOAD_RULE, VIDEO_UPLOAD_RULE, prepareFile } from '../../src/uploads/inputs.ts';
import type { TransferProgress } from '../../src/transport/progress.ts';
import { attemptBody, canStreamRequestBodies, multipartFraming } from '../../src/uploads/body.ts';
import { byteStream, fixture } from '../helpers/fixtures.ts';

const png = fixture('tiny.png');
const mp4 = fixture('tiny.mp4');
const MiB = 1024 * 1024;

/** The body as the platform parses it: the `file` part. */
async function part(body: BodyInit, headers: Record<string, string>): Promise<File> {
  const request = new Request('http://127.0.0.1/', { method: 'POST', body, headers, duplex: 'half' } as RequestInit);
  return (await request.formData()).get('file') as File;
}

describe('upload bodies', () => {
  it('Node can stream request bodies', () => {
    expect(canStreamRequestBodies()).toBe(true);
  });

  it('the framing is the platform FormData’s, so quoting of odd names is the runtime’s', async () => {
    const framing = await multipartFraming('a "quoted"\nname.png', 'image/png');
    const text = new TextDecoder().decode(framing.prefix);
    expect(framing.contentType).toMatch(/^multipart\/form-data; boundary=/);
    expect(text).toContain('name="file"; filename="a %22quoted%22%0Aname.png"');
    expect(text).toContain('Content-Type: image/png');
    expect(new TextDecoder().decode(framing.suffix)).toMatch(/^\r\n--.+--(\r\n)?$/);
  });

  it('streamed: the part parses back to the same bytes, with an exact Content-Length', async () => {
    const file = await prepareFile(new File([png.bytes], 'p.png'), IMAGE_UPLOAD_RULE);
    const { body, headers, counted } = await attemptBody(file, () => multipartFraming(file.filename, 'image/png'), { onTooLarge: () => {} });
    expect(counted).toBe(true);
    const bytes = new Uint8Array(await new Response(body).arrayBuffer());
    expect(Number(headers['content-length'])).toBe(bytes.byteLength);
    const parsed = await part(bytes, headers);
    expect(parsed).toMatchObject({ name: 'p.png', type: 'image/png' });
    expect(new Uint8Array(await parsed.arrayBuffer())).toEqual(png.bytes);
  });

  describe('where fetch cannot stream a body (browsers)', () => {
    const noFraming = () => Promise.reject(new Error('not used'));

    it('a Blob goes as the platform FormData; progress is left to the caller', async () => {
      const file = await prepareFile(new File([png.bytes], 'p.png'), IMAGE_UPLOAD_RULE);
      const progress: TransferProgress[] = [];
      const { body, counted } = await attemptBody(file, noFraming, { onTooLarge: () => {}, onProgress: (p) => progress.push(p) }, false);
      expect(body).toBeInstanceOf(FormData);
      expect(counted).toBe(false);
      expect(progress).toEqual([]);
      const parsed = (body as FormData).get('file') as File;
      expect(parsed).toMatchObject({ name: 'p.png', type: 'image/png', size: png.bytes.byteLength });
    });

    it('a stream is collected into the FormData: exactly 50 MiB passes, one byte more fails at the limit', async () => {
      const edge = await prepareFile(byteStream(mp4.bytes, 50 * MiB), VIDEO_UPLOAD_RULE);
      const { body } = await attemptBody(edge, noFraming, { onTooLarge: () => {} }, false);
      expect(((body as FormData).get('file') as File).size).toBe(50 * MiB);

      const over = await prepareFile(byteStream(mp4.bytes, 50 * MiB + 1), VIDEO_UPLOAD_RULE);
      let reported: ValidationError | undefined;
      const error = await attemptBody(over, noFraming, { onTooLarge: (e) => (reported = e) }, false).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(error).toBe(reported);
    });
  });
});
