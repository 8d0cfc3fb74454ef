import { MemoryUploadCacheStore } from '../coordination/memory.ts';
import type { CachedUpload, UploadCacheStore } from '../coordination/ports.ts';
import { DEFAULT_UPLOAD_CACHE_MARGIN_MS, type UploadCacheOptions } from '../options.ts';
import { raceAbort } from '../internal/race-abort.ts';
import { PortGuard, PORT_TIMEOUT_MS } from '../internal/port-call.ts';
import { epochMs } from '../schemas/time.ts';
import type { PreparedFile } from './inputs.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
// Files are hashed a chunk at a time so that hashing never holds more than this in memory.
const HASH_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * When a record stops being valid, in ms since the epoch: its `expires_at`, else its
 * `created_at` (else `uploadedAt`) plus a day, each read by the one rule of the service's times
 * (a store may hold a record as another SDK or service wrote it: ms, an ISO string).
 */
export function expiresAtMs(record: CachedUpload, uploadedAt: number): number {
  return epochMs(record.expires_at) ?? (epochMs(record.created_at) ?? uploadedAt) + DAY_MS;
}

const hex = (digest: ArrayBuffer) => Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * The cache key of a file: its kind and a SHA-256 (WebCrypto) of its bytes. A file up to
 * 4 MiB is keyed by the SHA-256 of its bytes; a larger one by the SHA-256 of the SHA-256s of
 * its 4 MiB chunks, so hashing a 50 MiB video holds 4 MiB at a time, not 50.
 */
export async function uploadCacheKey(file: PreparedFile & { source: { replayable: true } }): Promise<string> {
  const blob = await file.source.open();
  const subtle = globalThis.crypto.subtle;
  if (blob.size <= HASH_CHUNK_BYTES) return `${file.rule.kind}:sha256:${hex(await subtle.digest('SHA-256', await blob.arrayBuffer()))}`;
  const digests = new Uint8Array(Math.ceil(blob.size / HASH_CHUNK_BYTES) * 32);
  for (let offset = 0, i = 0; offset < blob.size; offset += HASH_CHUNK_BYTES, i++) {
    const chunk = await blob.slice(offset, offset + HASH_CHUNK_BYTES).arrayBuffer();
    digests.set(new Uint8Array(await subtle.digest('SHA-256', chunk)), i * 32);
  }
  return `${file.rule.kind}:sha256x4m:${hex(await subtle.digest('SHA-256', digests))}`;
}

/**
 * Reuse of uploads: the spec keeps an upload 24 hours and says one image needs uploading
 * once. The same bytes uploaded again while the earlier record has more than `margin` left
 * give back that record; uploads of the same bytes at the same time share one request.
 *
 * @example
 * ```ts
 * const client = new OmniMedia({ uploadCache: {} });
 * const a = await client.uploads.image('./logo.png');
 * const b = await client.uploads.image('./logo.png'); // same bytes: the first record, no second upload
 * ```
 */
export class UploadCache {
  /** Where the records are kept (the `store` option; by default in memory). */
  declare readonly store: UploadCacheStore;
  /** ms a record must still be valid for to be reused (the `margin` option). */
  declare readonly margin: number;
  readonly #inFlight = new Map<string, InFlight>();
  /** The store's boundary: a store that fails or hangs is a warning (once), and the upload goes on without it. */
  readonly #port: PortGuard;

  constructor(options: UploadCacheOptions = {}, warn: (message: string) => void = () => {}) {
    this.store = options.store ?? new MemoryUploadCacheStore(options.maxEntries);
    this.margin = options.margin ?? DEFAULT_UPLOAD_CACHE_MARGIN_MS;
    this.#port = new PortGuard('the upload cache’s store', { warn });
  }

  /**
   * The cached record for `key` when it is still comfortably valid, else the result of `upload`
   * (then cached). Uploads of the same key at the same time share one, which belongs to none of
   * them: it runs under a signal of its own (what `upload` is given), aborted only when every
   * caller has gone. `limits.signal` (or a signal given alone) ends this caller's wait at once,
   * the store's reads included. A store that fails, or does not answer within `limits.timeout`
   * (2 s at most), is a warning: the cache is a help, never a condition.
   */
  async getOrUpload<R extends CachedUpload>(
    key: string,
    upload: (signal: AbortSignal) => Promise<R>,
    limits: AbortSignal | { signal?: AbortSignal | undefined; timeout?: number | undefined } = {},
    now: () => number = Date.now,
  ): Promise<{ record: R; cached: boolean }> {
    // A signal alone is what this took before the store had a time of its own.
    const { signal, timeout } = limits instanceof AbortSignal ? { signal: limits, timeout: undefined } : limits;
    signal?.throwIfAborted();
    const bounds = { signal, timeoutMs: Math.min(timeout ?? PORT_TIMEOUT_MS, PORT_TIMEOUT_MS), fallback: () => undefined };
    let flight = this.#inFlight.get(key);
    const cached = flight !== undefined;
    if (!flight) {
      const found = await this.#port.call(() => this.store.get(key), { ...bounds, accept: isRecord });
      if (found && expiresAtMs(found, now()) - now() > this.margin) return { record: found as R, cached: true };
      if (found) await this.#port.call(() => this.store.delete(key), bounds);
      // Another caller may have started the same upload meanwhile.
      flight = this.#inFlight.get(key) ?? this.#start(key, upload, now);
    }
    const shared = flight;
    shared.callers++;
    try {
      return { record: (await (signal ? raceAbort(shared.promise, signal) : shared.promise)) as R, cached };
    } finally {
      if (--shared.callers === 0 && this.#inFlight.get(key) === shared) {
        this.#inFlight.delete(key);
        shared.controller.abort(signal?.reason);
      }
    }
  }

  #start(key: string, upload: (signal: AbortSignal) => Promise<CachedUpload>, now: () => number): InFlight {
    const controller = new AbortController();
    const uploadedAt = now();
    const flight: InFlight = {
      callers: 0,
      controller,
      promise: upload(controller.signal).then(async (record) => {
        const ttl = expiresAtMs(record, uploadedAt) - this.margin - now();
        // Nobody waits for the record to be kept: the callers have their upload.
        if (ttl > 0) this.#port.fire(() => this.store.set(key, record, ttl));
        return record;
      }),
    };
    flight.promise.catch(() => {}).finally(() => this.#inFlight.get(key) === flight && this.#inFlight.delete(key));
    this.#inFlight.set(key, flight);
    return flight;
  }

}

/** Whether a store's answer is a record (or none): anything else is a miss. */
function isRecord(record: unknown): boolean {
  if (record === undefined) return true;
  const { url, upload_id } = (record ?? {}) as { url?: unknown; upload_id?: unknown };
  return typeof record === 'object' && (typeof url === 'string' || typeof upload_id === 'string');
}

/** One upload shared by the callers of the same bytes. */
interface InFlight {
  promise: Promise<CachedUpload>;
  controller: AbortController;
  /** Callers waiting on it; when the last one goes, the upload is cancelled. */
  callers: number;
}
