import { MemoryUploadCacheStore } from '../coordination/memory.ts';
import type { CachedUpload, UploadCacheStore } from '../coordination/ports.ts';
import { storedJson } from './driver.ts';
import type { Outage } from './outage.ts';

/** What the upload cache needs of its coordination. */
export interface UploadCachePorts {
  command(...args: (string | number)[]): Promise<unknown>;
  outage: Outage;
  /** The record key of an upload's cache key. */
  key(cacheKey: string): string;
}

/** The upload cache on Redis: one JSON record per upload, expiring with it. Redis down: per process. */
export class RedisUploadCacheStore implements UploadCacheStore {
  readonly #ports: UploadCachePorts;
  readonly #fallback = new MemoryUploadCacheStore();

  constructor(ports: UploadCachePorts) {
    this.#ports = ports;
  }

  get(key: string): Promise<CachedUpload | undefined> {
    return this.#ports.outage.run(
      async () => storedJson<CachedUpload>(await this.#ports.command('GET', this.#ports.key(key))),
      () => this.#fallback.get(key),
    );
  }

  set(key: string, record: CachedUpload, ttlMs: number): Promise<void> {
    return this.#ports.outage.run(
      async () => void (await this.#ports.command('SET', this.#ports.key(key), JSON.stringify(record), 'PX', Math.max(1, Math.floor(ttlMs)))),
      () => this.#fallback.set(key, record, ttlMs),
    );
  }

  delete(key: string): Promise<void> {
    return this.#ports.outage.run(
      async () => void (await this.#ports.command('DEL', this.#ports.key(key))),
      () => this.#fallback.delete(key),
    );
  }
}
