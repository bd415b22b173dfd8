// Asking for more results never changes the first ones. A workspace of 160 small functions whose
// names and bodies share the query's words, and one 600-line function called from 90 places
// that mentions them once: it is past the streams' first 60 hits, and it used to jump to second
// place when a client asked for 100 results (an editor's workspace/symbol) but not for 10.
// Filters narrow each stream's list before ranking: a rank is a rank among what may be answered.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEARCH_MAX_LIMIT } from '../protocol';
import { Engine } from '../server/src/engine/engine';

const VERBS = ['parse', 'load', 'read', 'merge', 'check', 'validate', 'render', 'write', 'store', 'fetch'];
const NOUNS = ['config', 'settings', 'options', 'profile', 'section', 'entry', 'value', 'table', 'record', 'layout'];

function moduleText(): string {
  const out: string[] = [];
  for (let i = 0; i < 160; i++) {
    const v = VERBS[(i * 7) % VERBS.length];
    const n = NOUNS[(i * 3) % NOUNS.length];
    const m = NOUNS[(i * 11 + 4) % NOUNS.length];
    out.push(`def ${v}_${n}_${m}_${i}(path):\n    # ${v} the ${n} ${m} from the file\n    ${n} = open(path).read()\n    return ${n}.split('${m}')\n`);
  }
  const steps = Array.from({ length: 600 }, (_, j) => `    step_${j} = argv[${j % 7}] * ${j}`);
  out.push(['def run_everything(argv):', '    # configuration file', ...steps, '    return argv', ''].join('\n'));
  for (let i = 0; i < 90; i++) out.push(`def task_${i}(argv):\n    return run_everything(argv)\n`);
  return out.join('\n');
}

let root: string;
let engine: Engine;
beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-depth-'));
  fs.mkdirSync(path.join(root, 'pkg/extra'), { recursive: true });
  fs.writeFileSync(path.join(root, 'pkg/mod.py'), moduleText());
  fs.writeFileSync(
    path.join(root, 'pkg/extra/cache.py'),
    'def read_cached_settings(path):\n    # read the settings from the cache file\n    return open(path).read()\n\n\ndef drop_cache(path):\n    return None\n',
  );
  engine = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
  await engine.indexWorkspace();
  await engine.embeddings.idle();
});
afterAll(async () => {
  await engine.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const names = async (query: string, limit: number, extra: { kinds?: Array<'function'>; paths?: string[] } = {}) =>
  (await engine.search({ query, limit, ...extra })).results.map((r) => r.name);

describe('the first answers do not depend on the limit', () => {
  const QUERIES = [
    'parse the config file',
    'read settings from the configuration file',
    'validate a table record',
    'run_everything',
    'Loading the layout crashes when the settings file has an empty section; the profile table is written anyway and the next read of the configuration fails',
  ];

  it.each(QUERIES)('%s', async (query) => {
    const ten = await names(query, 10);
    expect(ten).toHaveLength(10);
    for (const limit of [20, 100, SEARCH_MAX_LIMIT]) expect((await names(query, limit)).slice(0, 10)).toEqual(ten);
  });

  it('a long, much-called function that barely matches does not jump ahead when more results are asked for', async () => {
    for (const query of QUERIES.slice(0, 3)) expect((await names(query, 100)).slice(0, 10)).not.toContain('run_everything');
  });

  it('the same holds under a kind filter', async () => {
    const query = 'read settings from the configuration file';
    const ten = await names(query, 10, { kinds: ['function'] });
    for (const limit of [50, 200]) expect((await names(query, limit, { kinds: ['function'] })).slice(0, 10)).toEqual(ten);
  });
});

describe('filters narrow the streams before ranking', () => {
  it('under a path filter the best match there comes first, ranked first among what the filter allows', async () => {
    const res = await engine.search({ query: 'read settings from the configuration file', limit: 5, paths: ['pkg/extra'] });
    expect(res.results.map((r) => r.name)).toEqual(['read_cached_settings', 'drop_cache', 'cache'].slice(0, res.results.length));
    expect(Math.min(...Object.values(res.results[0].ranks ?? {}))).toBe(1);
  });
});
