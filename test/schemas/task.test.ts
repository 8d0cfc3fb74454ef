import * as z from 'zod/mini';
import { describe, expect, it } from 'vitest';
import { TaskResultSchema, TaskSubmissionSchema, VideoTaskSubmissionSchema, ImageUploadSchema, VideoUploadSchema } from 'omnimedia/schemas';
import { rawAnswer } from 'omnimedia/schemas';

const ok = <S extends z.core.$ZodType>(schema: S, value: unknown) => z.safeParse(schema, value).success;

describe('response schemas are lenient where the spec is silent, strict where we need it', () => {
  it('a submission needs task_id; status defaults to pending (absent or null)', () => {
    expect(z.parse(TaskSubmissionSchema, { task_id: 't' })).toEqual({ task_id: 't', status: 'pending' });
    expect(z.parse(TaskSubmissionSchema, { task_id: 't', status: null })).toEqual({ task_id: 't', status: 'pending' });
    expect(ok(TaskSubmissionSchema, { status: 'pending' })).toBe(false);
    expect(ok(TaskSubmissionSchema, { task_id: '' })).toBe(false);
    expect(z.parse(TaskSubmissionSchema, { task_id: 42 })).toEqual({ task_id: '42', status: 'pending' }); // a whole number: its string
    expect(ok(TaskSubmissionSchema, { task_id: 4.5 })).toBe(false);
    expect(ok(TaskSubmissionSchema, { task_id: true })).toBe(false);
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

  it('a known field of another type is read as its type where nothing is lost, else left out; the raw answer keeps it', () => {
    const sent = {
      task_id: 't',
      status: 'completed',
      data: 'https://x',
      total_cost: '0.25',
      elapsed_s: '12',
      attempt_count: '1e2',
      total_elapsed_s: '007',
      created_at: '2025-01-02T03:04:05+01:00',
      completed_at: '2025-01-02T03:04:05',
      model: 3,
      provider: false,
      attempts: [{ attempt_no: '2', elapsed_s: { s: 1 } }, 5],
    };
    const task = z.parse(TaskResultSchema, sent);
    expect(task).toStrictEqual({
      task_id: 't',
      status: 'completed',
      total_cost: 0.25,
      elapsed_s: 12,
      attempt_count: 100,
      created_at: Date.UTC(2025, 0, 2, 2, 4, 5) / 1000,
      model: '3',
      attempts: [{ attempt_no: 2 }],
    });
    expect(rawAnswer(task)).toBe(sent);
    expect(z.parse(TaskSubmissionSchema, { task_id: 't', status: 0 })).toEqual({ task_id: 't', status: 'pending' });
    expect(z.parse(ImageUploadSchema, { url: 'u', bytes: '10', expires_at: '1700000000' })).toEqual({ url: 'u', bytes: 10, expires_at: 1_700_000_000 });
    expect(ok(VideoUploadSchema, { upload_id: 7 })).toBe(true);
    expect(ok(VideoUploadSchema, { upload_id: true })).toBe(false);
  });

  it('upload records: image needs url, video needs upload_id', () => {
    expect(ok(ImageUploadSchema, { url: 'https://u/1.png', width: null })).toBe(true);
    expect(ok(ImageUploadSchema, { filename: 'a.png' })).toBe(false);
    expect(ok(VideoUploadSchema, { upload_id: 'up_1' })).toBe(true);
    expect(ok(VideoUploadSchema, { url: 'https://u/1.mp4' })).toBe(false);
  });
});
