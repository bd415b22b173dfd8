// Test workspaces: a fixture copied to a temp folder (the index is written inside the root),
// and an engine opened on it. Everything is removed by `dispose`.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../server/src/engine/engine';
import type { EngineOptions } from '../../server/src/engine/api';

export const FIXTURES = path.resolve(__dirname, '../../fixtures');

export function copyFixture(name: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-test-'));
  // Never copy an index someone built inside the fixture (`nsccn index --root fixtures/...`).
  fs.cpSync(path.join(FIXTURES, name), root, { recursive: true, filter: (src) => path.basename(src) !== '.nsccn' });
  return root;
}

export interface TestWorkspace {
  root: string;
  engine: Engine;
  write(rel: string, text: string): void;
  remove(rel: string): void;
  dispose(): Promise<void>;
}

export async function openWorkspace(fixture: string, options: Partial<EngineOptions> = {}): Promise<TestWorkspace> {
  const root = copyFixture(fixture);
  const engine = await Engine.open({ root, workers: 0, embeddings: { model: 'none' }, ...options });
  await engine.indexWorkspace();
  const ws: TestWorkspace = {
    root,
    engine,
    write: (rel, text) => {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    },
    remove: (rel) => fs.rmSync(path.join(root, rel)),
    dispose: async () => {
      await ws.engine.close(); // the test may have reopened it
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
  return ws;
}

/** Every resolved edge of a workspace as `source -RELATION-> target` (unresolved: `?name`). */
export function edgeList(engine: Engine, relations?: string[]): string[] {
  const out: string[] = [];
  for (const f of engine.store.files()) {
    for (const e of engine.fileEntities(f.path)) {
      for (const x of engine.outgoing(e.id)) {
        if (relations && !relations.includes(x.relation)) continue;
        out.push(`${x.source} -${x.relation}-> ${x.target ?? '?' + x.targetName}${x.ambiguous ? ' (ambiguous)' : ''}${x.dispatch ? ' (dispatch)' : ''}`);
      }
    }
  }
  return [...new Set(out)].sort();
}
