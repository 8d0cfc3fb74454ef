import { batch } from './batch.ts';
import type { Command } from './command.ts';
import { imagesEdit, imagesGenerate } from './images.ts';
import { mcp } from './mcp.ts';
import { mock } from './mock.ts';
import { studio } from './studio.ts';
import { tasksGet, tasksWait } from './tasks.ts';
import { uploadsImage, uploadsVideo } from './uploads.ts';
import { videosEdit, videosGenerate } from './videos.ts';

/** Every command, by group and action (`mock`, `mcp` and `studio` have none). */
export const COMMANDS: Record<string, Record<string, Command> | Command> = {
  images: { generate: imagesGenerate, edit: imagesEdit },
  videos: { generate: videosGenerate, edit: videosEdit },
  uploads: { image: uploadsImage, video: uploadsVideo },
  tasks: { get: tasksGet, wait: tasksWait },
  batch,
  mock,
  mcp,
  studio,
};

export type { Command } from './command.ts';
