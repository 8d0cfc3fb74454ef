import { describe, expect, it } from 'vitest';
import { appendBounded, BoundedMap, dropOldest } from '../../src/internal/bounded-map.ts';

describe('BoundedMap', () => {
  it('holds at most maxEntries, dropping the least recently used', () => {
    const map = new BoundedMap<string, number>(2);
    map.set('a', 1).set('b', 2);
    expect(map.get('a')).toBe(1); // a is now the most recent
    map.set('c', 3);
    expect([...map.entries()]).toEqual([
      ['a', 1],
      ['c', 3],
    ]);
    expect(map.size).toBe(2);
  });

  it('expires entries after their ttl, and an expired read removes the entry', () => {
    let now = 1_000;
    const map = new BoundedMap<string, string>(10, () => now);
    map.set('short', 'x', 100).set('forever', 'y');
    now = 1_099;
    expect(map.get('short')).toBe('x');
    now = 1_100;
    expect(map.has('short')).toBe(false);
    expect(map.size).toBe(1);
    expect(map.get('forever')).toBe('y');
  });

  it('a bound below 1 still keeps the last entry', () => {
    const map = new BoundedMap<string, number>(0);
    map.set('a', 1).set('b', 2);
    expect([...map.entries()]).toEqual([['b', 2]]);
  });

  it('entries() skips an expired entry, keeps it held until it is read, and ends on the exact expiry', () => {
    let now = 0;
    const map = new BoundedMap<string, number>(10, () => now);
    map.set('short', 1, 100).set('long', 2, 200);
    now = 99;
    expect([...map.entries()]).toEqual([
      ['short', 1],
      ['long', 2],
    ]);
    now = 100; // `until` is exclusive: at 100 'short' is gone
    expect([...map.entries()]).toEqual([['long', 2]]);
    expect(map.size).toBe(2);
  });

  it('delete removes the entry and says whether it was there', () => {
    const map = new BoundedMap<string, number>(10);
    map.set('a', 1).set('b', 2);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    expect(map.get('a')).toBeUndefined();
    expect([...map.entries()]).toEqual([['b', 2]]);
  });

  it('drops in least-recently-used order through many uses, deletions and rehashes of its table', () => {
    // A model: an array, least recently used first. The map drops where it left off last time,
    // so what it drops must stay right as its table grows, shrinks and is rehashed.
    const max = 50;
    const map = new BoundedMap<number, number>(max);
    let model: number[] = [];
    const use = (key: number) => (model = [...model.filter((k) => k !== key), key]);
    let seed = 7;
    const random = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % n;
    for (let step = 0; step < 20_000; step++) {
      const key = random(step < 10_000 ? 400 : 60);
      const op = random(10);
      if (op < 6) {
        map.set(key, step);
        use(key);
        model = model.slice(-max);
      } else if (op < 8) {
        const had = model.includes(key);
        expect(map.get(key) !== undefined).toBe(had);
        if (had) use(key);
      } else {
        expect(map.delete(key)).toBe(model.includes(key));
        model = model.filter((k) => k !== key);
      }
    }
    expect([...map.entries()].map(([key]) => key)).toEqual(model);
    expect(map.size).toBe(model.length);
  });

  // A Map iterator kept between drops (to skip the deleted entries a fresh one walks) made V8
  // keep every table the map was rehashed into since: 28 MB after this loop. Bounded means bounded.
  it.runIf(typeof globalThis.gc === 'function')('holds no more memory after churning below its bound', () => {
    const map = new BoundedMap<string, object>(1_000);
    globalThis.gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 300_000; i++) {
      map.set(`k${i % 50}`, { i });
      if (i % 3 === 0) map.delete(`k${(i * 7) % 50}`);
    }
    globalThis.gc?.();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(5_000_000);
    expect(map.size).toBeLessThanOrEqual(50); // the map still in use: what it holds is counted
  });

  it('using the key used last again keeps it last, also once it was deleted or expired', () => {
    let now = 0;
    const map = new BoundedMap<string, number>(2, () => now);
    map.set('a', 1).set('b', 2).set('b', 3);
    expect(map.get('b')).toBe(3);
    map.set('c', 4); // drops a, the least recently used
    expect([...map.entries()]).toEqual([
      ['b', 3],
      ['c', 4],
    ]);
    map.delete('c');
    map.set('c', 5, 10).set('d', 6); // c, deleted while the newest, is set anew: b is dropped
    expect([...map.entries()]).toEqual([
      ['c', 5],
      ['d', 6],
    ]);
    expect(map.get('c')).toBe(5);
    now = 10;
    expect(map.get('c')).toBeUndefined(); // expired while the newest: removed
    expect(map.size).toBe(1);
    map.set('c', 7).set('e', 8); // drops d
    expect([...map.entries()]).toEqual([
      ['c', 7],
      ['e', 8],
    ]);
  });

  it('re-setting a key counts as a use and replaces its value and expiry', () => {
    let now = 0;
    const map = new BoundedMap<string, number>(2, () => now);
    map.set('a', 1, 10).set('b', 2);
    map.set('a', 3); // a: most recent, no expiry
    map.set('c', 4); // drops b
    now = 1_000;
    expect([...map.entries()]).toEqual([
      ['a', 3],
      ['c', 4],
    ]);
  });
});

describe('appendBounded', () => {
  it('pushes the item last and keeps the last max items', () => {
    const log = [1, 2, 3];
    appendBounded(log, 4, 3);
    expect(log).toEqual([2, 3, 4]);
    appendBounded(log, 5, 2);
    expect(log).toEqual([4, 5]);
  });

  it('keeps a log at or under the bound whole', () => {
    const log = [1];
    appendBounded(log, 2, 3);
    expect(log).toEqual([1, 2]);
    appendBounded(log, 3, 3);
    expect(log).toEqual([1, 2, 3]);
  });
});

describe('dropOldest', () => {
  it('drops the first-inserted keys past max and returns them, oldest first', () => {
    const map = new Map([
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
    ]);
    expect(dropOldest(map, 2)).toEqual(['a', 'b']);
    expect([...map.keys()]).toEqual(['c', 'd']);
  });

  it('drops nothing from a map at or under max', () => {
    const map = new Map([
      ['a', 1],
      ['b', 2],
    ]);
    expect(dropOldest(map, 2)).toEqual([]);
    expect(dropOldest(map, 3)).toEqual([]);
    expect([...map.keys()]).toEqual(['a', 'b']);
  });

  it('drops everything when max is 0', () => {
    const map = new Map([['a', 1]]);
    expect(dropOldest(map, 0)).toEqual(['a']);
    expect(map.size).toBe(0);
  });
});
