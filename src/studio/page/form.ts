/**
 * The form: one operation at a time (a labelled radio group), every control labelled, the
 * rules' messages under their control (the page's own text, tied to it by
 * `aria-describedby`) before anything is sent, and the submission through the page's client.
 * A form with a broken rule sends nothing: the messages show and the first such control gets
 * the focus.
 */
import type { OmniMedia } from 'omnimedia';
import { createElement as h, useState, type ReactNode } from 'react';
import {
  ASPECT_RATIOS,
  FIELDS,
  IMAGE_QUALITIES,
  MAX_IMAGES_PER_REQUEST,
  OPERATIONS,
  SIZE_CHOICES,
  VIDEO_RESOLUTIONS,
  VIDEO_SECONDS,
  emptyForm,
  issuesOf,
  paramsOf,
  type FormState,
  type MediaRef,
} from './params.ts';

/** The label each control is known by (its accessible name). */
const LABELS: Record<string, string> = {
  model: 'Model',
  prompt: 'Prompt',
  size: 'Size',
  n: 'Number of images (n)',
  quality: 'Quality',
  seconds: 'Seconds',
  resolution: 'Resolution',
  aspect_ratio: 'Aspect ratio',
  images: 'Images',
  mask: 'Mask',
  video: 'Video',
};

const refName = (ref: MediaRef) => (ref.kind === 'file' ? ref.file.name : ref.kind === 'url' ? `uploaded: ${ref.url.slice(-24)}` : `upload ${ref.upload_id}`);

/** The submission of the form's operation, through the page's client (uploads first, by the SDK). */
async function submit(client: OmniMedia, form: FormState): Promise<{ task_id: string }> {
  const params = paramsOf(form) as never;
  switch (form.op) {
    case 'images.generate':
      return client.images.generate(params);
    case 'images.edit':
      return client.images.edit(params);
    case 'videos.generate':
      return client.videos.generate(params);
    case 'videos.edit':
      return client.videos.edit(params);
  }
}

/** The issues of an error the client threw: a `ValidationError`'s by control, else its message. */
function errorIssues(error: unknown): Record<string, string[]> {
  const issues = (error as { issues?: { path: string; message: string }[] }).issues;
  if (!Array.isArray(issues)) return { form: [(error as Error).message ?? String(error)] };
  const out: Record<string, string[]> = {};
  for (const issue of issues) {
    const [first = 'form'] = issue.path.split(/[.[]/);
    const control = first === 'image' ? 'images' : first === 'input_video' ? 'video' : first === 'messages' ? 'prompt' : first;
    (out[control] ??= []).push(issue.message);
  }
  return out;
}

export interface FormProps {
  client: OmniMedia;
  form: FormState;
  setForm: (form: FormState) => void;
  onSubmitted: (taskId: string) => void;
}

/** The form of the current operation. */
export function StudioForm({ client, form, setForm, onSubmitted }: FormProps): ReactNode {
  const [tried, setTried] = useState(false);
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [sending, setSending] = useState(false);
  const [sent, setSent] = useState<Record<string, string[]>>({});
  const live = issuesOf(form);
  const shown = (field: string): string[] => [...(tried || touched.has(field) ? (live[field] ?? []) : []), ...(sent[field] ?? [])];
  const change = (field: string, value: Partial<FormState>) => {
    setForm({ ...form, ...value });
    setTouched(new Set([...touched, field]));
    setSent({});
  };
  const fields = FIELDS[form.op];

  const describe = (field: string) => (shown(field).length > 0 ? { 'aria-invalid': true, 'aria-describedby': `${field}-problem` } : {});
  const problems = (field: string) =>
    shown(field).length > 0 ? h('p', { id: `${field}-problem`, className: 'problem', 'data-field': field }, shown(field).map((m) => `${LABELS[field] ?? field}: ${m}`).join('. ')) : null;
  const row = (field: string, control: ReactNode, hint?: string) =>
    h('div', { className: 'field', key: field }, h('label', { htmlFor: `f-${field}` }, LABELS[field]), control, hint ? h('small', null, hint) : null, problems(field));
  const text = (field: 'model' | 'size' | 'n', extra: Record<string, unknown> = {}) =>
    h('input', { id: `f-${field}`, name: field, value: form[field], onInput: (e: { currentTarget: HTMLInputElement }) => change(field, { [field]: e.currentTarget.value }), ...describe(field), ...extra });
  const select = (field: 'quality' | 'seconds' | 'resolution' | 'aspect_ratio', choices: readonly string[]) =>
    h(
      'select',
      { id: `f-${field}`, name: field, value: form[field], onChange: (e: { currentTarget: HTMLSelectElement }) => change(field, { [field]: e.currentTarget.value }), ...describe(field) },
      h('option', { value: '' }, 'default'),
      choices.map((choice) => h('option', { key: choice, value: choice }, choice)),
    );
  const files = (field: 'images' | 'mask' | 'video', accept: string, multiple: boolean) => {
    const chosen: MediaRef[] = field === 'images' ? form.images : form[field] ? [form[field]] : [];
    const put = (list: File[]) => {
      const refs: MediaRef[] = list.map((file) => ({ kind: 'file', file }));
      if (field === 'images') change(field, { images: [...form.images, ...refs] });
      else if (refs[0]) change(field, { [field]: refs[0] });
    };
    return h(
      'div',
      {
        className: 'drop',
        onDragOver: (e: DragEvent) => e.preventDefault(),
        onDrop: (e: DragEvent) => {
          e.preventDefault();
          put([...(e.dataTransfer?.files ?? [])]);
        },
      },
      h('input', {
        id: `f-${field}`,
        name: field,
        type: 'file',
        accept,
        multiple,
        ...describe(field),
        onChange: (e: { currentTarget: HTMLInputElement }) => {
          put([...(e.currentTarget.files ?? [])]);
          e.currentTarget.value = '';
        },
      }),
      h('span', { 'aria-hidden': true }, ' or drop files here'),
      chosen.length > 0
        ? h(
            'ul',
            { className: 'chosen' },
            chosen.map((ref, i) =>
              h(
                'li',
                { key: i },
                refName(ref),
                ' ',
                h(
                  'button',
                  {
                    type: 'button',
                    'aria-label': `Remove ${refName(ref)}`,
                    onClick: () => change(field, field === 'images' ? { images: form.images.filter((_, k) => k !== i) } : { [field]: undefined }),
                  },
                  '×',
                ),
              ),
            ),
          )
        : null,
    );
  };
  const controls: Record<string, () => ReactNode> = {
    model: () => row('model', text('model', { autoComplete: 'off', placeholder: form.op === 'videos.generate' ? 'chosen from the images' : '' })),
    prompt: () =>
      row('prompt', h('textarea', { id: 'f-prompt', name: 'prompt', rows: 4, value: form.prompt, onInput: (e: { currentTarget: HTMLTextAreaElement }) => change('prompt', { prompt: e.currentTarget.value }), ...describe('prompt') })),
    size: () => row('size', h('span', null, text('size', { list: 'sizes', placeholder: 'auto', autoComplete: 'off' }), h('datalist', { id: 'sizes' }, SIZE_CHOICES.map((s) => h('option', { key: s, value: s })))), 'auto or WIDTHxHEIGHT'),
    n: () => row('n', text('n', { type: 'number', inputMode: 'numeric', placeholder: '1' }), `1 to ${MAX_IMAGES_PER_REQUEST}`),
    quality: () => row('quality', select('quality', IMAGE_QUALITIES)),
    seconds: () => row('seconds', select('seconds', VIDEO_SECONDS)),
    resolution: () => row('resolution', select('resolution', VIDEO_RESOLUTIONS)),
    aspect_ratio: () => row('aspect_ratio', select('aspect_ratio', ASPECT_RATIOS)),
    images: () => row('images', files('images', 'image/png,image/jpeg,image/webp', true)),
    mask: () => row('mask', files('mask', 'image/png', false), 'optional: a PNG whose transparent pixels are edited'),
    video: () => row('video', files('video', 'video/mp4,video/quicktime,video/webm', false)),
  };

  const onSubmit = async (event: Event) => {
    event.preventDefault();
    setTried(true);
    const first = Object.keys(live).find((field) => fields.includes(field));
    if (first || Object.keys(live).length > 0) {
      document.getElementById(`f-${first ?? 'prompt'}`)?.focus();
      return;
    }
    setSending(true);
    try {
      const submission = await submit(client, form);
      setTried(false);
      setTouched(new Set());
      onSubmitted(submission.task_id);
    } catch (error) {
      setSent(errorIssues(error));
    } finally {
      setSending(false);
    }
  };

  return h(
    'form',
    { className: 'studio-form', onSubmit, noValidate: true, 'aria-label': 'New request' },
    h(
      'fieldset',
      { className: 'operations' },
      h('legend', null, 'Operation'),
      OPERATIONS.map(({ op, label }) =>
        h(
          'label',
          { key: op, className: form.op === op ? 'op selected' : 'op' },
          h('input', { type: 'radio', name: 'op', value: op, checked: form.op === op, onChange: () => setForm({ ...emptyForm(op), prompt: form.prompt }) }),
          label,
        ),
      ),
    ),
    fields.map((field) => controls[field]?.()),
    problems('form'),
    h('button', { type: 'submit', className: 'primary', disabled: sending }, sending ? 'Sending…' : 'Generate'),
  );
}
