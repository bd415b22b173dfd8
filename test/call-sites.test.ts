// The call sites the symbol model keeps (graph/call-sites.ts): a first index leaves them in the
// index under their callee names, and a lookup by name reads exactly those sites of the files that
// hold them, once, with one copy of each argument list.
import { describe, expect, it } from 'vitest';
import { CallSites, type CallSiteInput } from '../server/src/engine/graph/call-sites';

const site = (from: string, target: string, args: string[] = []): CallSiteInput => ({ from, target, receiver: null, rtype: null, args });

/** An index of two files' sites, counting what is read from it. */
function indexOf(files: Record<string, CallSiteInput[]>) {
  const reads: string[] = [];
  // What JSON.parse gives: new arrays and strings each time.
  const copy = (sites: CallSiteInput[]) => JSON.parse(JSON.stringify(sites)) as CallSiteInput[];
  const source = {
    callsOf: (file: string) => {
      reads.push(file);
      return copy(files[file] ?? []);
    },
    callsNamed: (file: string, name: string) => {
      reads.push(`${file} ${name}`);
      return copy((files[file] ?? []).filter((c) => c.target === name || c.target.endsWith(`.${name}`)));
    },
    filesReferring: () => {
      throw new Error('a first index has no refs.last index to ask');
    },
  };
  return { source, reads };
}

const A = [site('a.f', 'get', ['int']), site('a.f', 'x.put', ['str', 'k=int'])];
const B = [site('b.g', 'get', ['int']), site('b.g', 'run')];

/** a.py and b.py as a first index leaves them: in the index, listed under their callee names. */
function deferredAB() {
  const { source, reads } = indexOf({ 'a.py': A, 'b.py': B });
  const sites = new CallSites((id) => id);
  sites.readFrom(source);
  sites.set('a.py', undefined, ['get', 'put']);
  sites.set('b.py', undefined, ['get', 'run']);
  return { sites, reads };
}

describe('call sites left in the index by a first index', () => {
  it("a name reads only its own sites of the files that call it, once", () => {
    const { sites, reads } = deferredAB();
    expect(reads).toEqual([]);
    expect([...sites.named('run')].map((c) => c.from)).toEqual(['b.g']);
    expect(reads).toEqual(['b.py run']);
    expect([...sites.named('get')].map((c) => `${c.file} ${c.from}`).sort()).toEqual(['a.py a.f', 'b.py b.g']);
    expect(reads).toEqual(['b.py run', 'a.py get', 'b.py get']);
    expect([...sites.named('put')].map((c) => c.args)).toEqual([['str', 'k=int']]);
    expect([...sites.named('get')]).toHaveLength(2);
    expect(reads).toEqual(['b.py run', 'a.py get', 'b.py get', 'a.py put']);
    expect([...sites.named('nothing')]).toEqual([]);
  });

  it('a file read in part and then whole, changed or released holds each site once', () => {
    const { sites, reads } = deferredAB();
    expect([...sites.named('get')]).toHaveLength(2);
    // Whole: its `get` site is not listed twice.
    expect(sites.of('a.py').map((c) => c.target)).toEqual(['get', 'x.put']);
    expect(reads).toEqual(['a.py get', 'b.py get', 'a.py']);
    expect([...sites.named('get')].map((c) => c.file).sort()).toEqual(['a.py', 'b.py']);
    // Changed: the part read before goes with it.
    sites.set('b.py', [site('b.k', 'run')]);
    expect([...sites.named('get')].map((c) => c.file)).toEqual(['a.py']);
    expect([...sites.named('run')].map((c) => c.from)).toEqual(['b.k']);
  });

  it('once released, the sites read are read again from the index when asked, the same', () => {
    const files = { 'a.py': A, 'b.py': B, 'c.py': [site('c.h', 'get', ['str'])] };
    const reads: string[] = [];
    const referring: string[] = [];
    const sites = new CallSites((id) => id);
    const of = (file: string) => JSON.parse(JSON.stringify(files[file as keyof typeof files])) as CallSiteInput[];
    sites.readFrom({
      callsOf: (file) => (reads.push(file), of(file)),
      callsNamed: (file, name) => (reads.push(file), of(file).filter((c) => c.target.endsWith(name))),
      filesReferring: (name) => (referring.push(name), Object.keys(files).filter((f) => files[f as keyof typeof files].some((c) => c.target.endsWith(name)))),
    });
    sites.set('a.py', undefined, ['get', 'put']);
    sites.set('b.py', undefined, ['get', 'run']);
    // Given with its sites (an edit), and in the index too.
    sites.set('c.py', files['c.py']);
    const before = [...sites.named('get')].map((c) => `${c.file} ${c.from} ${c.args}`).sort();
    expect(before).toEqual(['a.py a.f int', 'b.py b.g int', 'c.py c.h str']);
    reads.length = 0;
    sites.release();
    expect(reads).toEqual([]);
    expect([...sites.named('get')].map((c) => `${c.file} ${c.from} ${c.args}`).sort()).toEqual(before);
    expect(referring).toEqual(['get']);
    expect(reads.sort()).toEqual(['a.py', 'b.py', 'c.py']);
    // A file asked for whole is read whole, once.
    expect(sites.of('b.py').map((c) => c.target)).toEqual(['get', 'run']);
    expect(reads).toHaveLength(4);
    expect([...sites.named('run')].map((c) => c.from)).toEqual(['b.g']);
    expect(sites.of('b.py')).toHaveLength(2);
    expect(reads).toHaveLength(4);
  });

  it('sites read back share their argument lists', () => {
    const { sites } = deferredAB();
    const [x, y] = [...sites.named('get')];
    expect(x.args).toEqual(['int']);
    expect(x.args).toBe(y.args);
  });

  it('a file deferred after its name was read is read when the name is asked again', () => {
    const { source } = indexOf({ 'a.py': A, 'b.py': B });
    const sites = new CallSites((id) => id);
    sites.readFrom(source);
    sites.set('a.py', undefined, ['get', 'put']);
    expect([...sites.named('get')]).toHaveLength(1);
    sites.set('b.py', undefined, ['get', 'run']);
    expect([...sites.named('get')]).toHaveLength(2);
  });

  it('a deferred file replaced by an edit, or removed, answers with what it holds now', () => {
    const { sites } = deferredAB();
    sites.set('a.py', [site('a.h', 'get', ['bytes'])]);
    sites.remove('b.py');
    expect([...sites.named('get')].map((c) => `${c.from} ${c.args}`)).toEqual(['a.h bytes']);
    expect([...sites.named('put')]).toEqual([]);
    expect(sites.of('b.py')).toEqual([]);
  });
});
