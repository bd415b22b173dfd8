// The model's indexes by key (graph/sets-by-key.ts): a lone value is held as itself, yet the
// index answers as sets do — each value once, in the order they came, gone with the last.
import { describe, expect, it } from 'vitest';
import { SetsByKey } from '../server/src/engine/graph/sets-by-key';

describe('sets by key', () => {
  it('answers like a map of sets through one value, several, and back', () => {
    const m = new SetsByKey<string, string>();
    expect([...m.get('f')]).toEqual([]);
    m.add('f', 'a.py');
    m.add('f', 'a.py');
    expect([...m.get('f')]).toEqual(['a.py']);
    expect(m.count('f')).toBe(1);
    m.add('f', 'b.py');
    m.add('f', 'c.py');
    expect([...m.get('f')]).toEqual(['a.py', 'b.py', 'c.py']);
    m.remove('f', 'a.py');
    m.remove('f', 'c.py');
    expect([...m.get('f')]).toEqual(['b.py']);
    m.remove('f', 'x.py'); // not there: nothing changes
    expect(m.count('f')).toBe(1);
    m.add('f', 'd.py');
    expect([...m.get('f')]).toEqual(['b.py', 'd.py']);
    m.remove('f', 'b.py');
    m.remove('f', 'd.py');
    expect(m.has('f')).toBe(false);
    expect(m.count('f')).toBe(0);
  });
});
