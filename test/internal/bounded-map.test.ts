import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/internal/bounded-map.ts';

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
});
