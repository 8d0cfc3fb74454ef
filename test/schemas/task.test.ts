import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { TaskResultSchema, TaskSubmissionSchema, VideoTaskSubmissionSchema, ImageUploadSchema, VideoUploadSchema } from 'omnimedia/schemas';

const ok = <S extends z.core.$ZodType>(schema: S, value: unknown) => z.safeParse(schema, value).success;

describe('response schemas are lenient where the spec is silent, strict where we need it', () => {
  it('a submission needs task_id; status defaults to pending (absent or null)', () => {
    expect(z.parse(TaskSubmissionSchema, { task_id: 't' })).toEqual({ task_id: 't', status: 'pending' });
    expect(z.parse(TaskSubmissionSchema, { task_id: 't', status: null })).toEqual({ task_id: 't', status: 'pending' });
    expect(ok(TaskSubmissionSchema, { status: 'pending' })).toBe(false);
    expect(ok(TaskSubmissionSchema, { task_id: '' })).toBe(false);
    expect(ok(TaskSubmissionSchema, { task_id: 42 })).toBe(false);
  });

  it('a video submission keeps normalized_model and unknown fields', () => {
    const value = { task_id: 't', status: 'pending', normalized_model: 'omni_flash_1080p_8s', billing: { unit: 'credits' } };
    expect(z.parse(VideoTaskSubmissionSchema, value)).toEqual(value);
  });

  it('a task result needs task_id and status, accepts any status and fail_reason string, and nulls', () => {
    const value = {
      task_id: 't',
      status: 'moderated',
      fail_reason: 'content_policy',
      data: null,
      attempts: [{ attempt_no: 1, status: 'cancelled', fail_reason: 'quota_exceeded', elapsed_s: null, gpu: 'a100' }],
      total_cost: null,
      new_field: [1, 2],
    };
    // Nulls of known fields read as absent (no `| null` in the types); unknown fields are kept.
    expect(z.parse(TaskResultSchema, value)).toStrictEqual({
      task_id: 't',
      status: 'moderated',
      fail_reason: 'content_policy',
      attempts: [{ attempt_no: 1, status: 'cancelled', fail_reason: 'quota_exceeded', gpu: 'a100' }],
      new_field: [1, 2],
    });
    expect(ok(TaskResultSchema, { task_id: 't' })).toBe(false);
    expect(ok(TaskResultSchema, { status: 'completed' })).toBe(false);
  });

  it('a known field of the wrong type is refused (a broken response, not a lenient one)', () => {
    expect(ok(TaskResultSchema, { task_id: 't', status: 'completed', data: 'https://x' })).toBe(false);
  });

  it('upload records: image needs url, video needs upload_id', () => {
    expect(ok(ImageUploadSchema, { url: 'https://u/1.png', width: null })).toBe(true);
    expect(ok(ImageUploadSchema, { filename: 'a.png' })).toBe(false);
    expect(ok(VideoUploadSchema, { upload_id: 'up_1' })).toBe(true);
    expect(ok(VideoUploadSchema, { url: 'https://u/1.mp4' })).toBe(false);
  });
});
