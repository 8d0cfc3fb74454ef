// `DIR/lock` of `omnimedia batch`: a journal has one owner. The lock is a file created only if
// absent (O_EXCL), naming its owner's pid, host and start; a second run on the same DIR refuses
// at once, naming them. A lock whose process is gone on this host (a `kill -9`, a reboot) is
// taken over with one warning; one from another host is never guessed dead: it names the
// command that removes it. Removed when the run ends, however it ends short of SIGKILL.
import { open, readFile, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { UsageError } from './args.ts';

/** What the lock file holds. */
interface Owner {
  pid: number;
  host: string;
  since: string;
}

function ownerOf(text: string): Owner | undefined {
  try {
    const value = JSON.parse(text) as Partial<Owner>;
    if (typeof value.pid === 'number' && typeof value.host === 'string') return { pid: value.pid, host: value.host, since: String(value.since ?? '?') };
  } catch {
    // Not a lock this CLI wrote (or one cut short): treated as held, with its removal named.
  }
  return undefined;
}

/** `true` when process `pid` of this host is gone (`kill(pid, 0)` says ESRCH). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** The lock held on `dir`; `release()` removes it. */
export interface DirLock {
  path: string;
  release(): Promise<void>;
}

async function create(path: string, me: Owner): Promise<boolean> {
  try {
    const handle = await open(path, 'wx');
    try {
      await handle.writeFile(`${JSON.stringify(me)}\n`);
      await handle.datasync();
    } finally {
      await handle.close();
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * Take the lock on `dir` (which exists), or a `UsageError` naming its owner and how to remove a
 * stale lock. `warn` hears the one warning of a take-over.
 */
export async function lockDir(dir: string, warn: (text: string) => void): Promise<DirLock> {
  const path = join(dir, 'lock');
  const me: Owner = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const held = (): DirLock => ({ path, release: () => rm(path, { force: true }) });
  if (await create(path, me)) return held();
  const text = await readFile(path, 'utf8').catch(() => '');
  const owner = ownerOf(text);
  if (owner && owner.host === me.host && owner.pid !== me.pid && gone(owner.pid)) {
    // Moved aside first: of two runs taking over at once, one moves it, the other finds a live lock or none.
    const aside = `${path}.${me.pid}.stale`;
    const moved = await rename(path, aside).then(
      () => true,
      () => false,
    );
    if (moved && (await readFile(aside, 'utf8').catch(() => '')) !== text) {
      // A fresh lock of a run that took over just before: put back.
      await rename(aside, path).catch(() => {});
    } else if (moved) {
      await rm(aside, { force: true });
      if (await create(path, me)) {
        warn(`took over ${path}: its run (pid ${owner.pid} on ${owner.host}, since ${owner.since}) is gone`);
        return held();
      }
    }
  }
  const now = ownerOf(await readFile(path, 'utf8').catch(() => '')) ?? owner;
  const who = now ? `pid ${now.pid} on ${now.host}, since ${now.since}` : 'an unreadable lock';
  throw new UsageError(
    `${dir} is in use by another run of omnimedia batch (${who}): two runs on one journal could pay twice. ` +
      `Wait for it to end; if no run is going (it ran on another machine that is gone), remove the stale lock: rm ${path}`,
    '--out',
  );
}
