// omnimedia/bullmq through require(): the CJS build requires 'omnimedia' and bullmq by name, so a
// failed task fails the job with the app's own UnrecoverableError.
const { UnrecoverableError } = require('bullmq');
const { OmniMedia } = require('omnimedia');
const { omniMediaProcessor } = require('omnimedia/bullmq');

const client = new OmniMedia({ baseURL: process.env.OMNIMEDIA_BASE_URL, apiKey: 'sk-package' });
const data = { id: 'z', op: 'images.generate', params: { model: 'omni-image', prompt: 'z' }, omnimedia: { id: 'z', state: 'sending', at: 1, op: 'images.generate' } };
omniMediaProcessor(client)({ id: '1', data, updateData: async () => {}, updateProgress: async () => {} }).then(
  () => {
    throw new Error('a mark without a task id was run');
  },
  (error) => {
    if (!(error instanceof UnrecoverableError)) throw error;
    console.log(`omnimedia/bullmq (node ${process.version} cjs): UnrecoverableError of the app's bullmq`);
  },
);
