// Dispatch edges ("may call"): a call on a base-class method also reaches the overrides in
// subclasses of the receiver's class, marked apart from the calls the code names. On
// fixtures/dispatch, whose graph its README states; the engine, then the CLI's text and JSON.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TraceResult } from '../protocol';
import { Engine } from '../server/src/engine/engine';
import { requireBuiltCli, runCli } from './helpers/cli';
import { copyFixture, edgeList, openWorkspace, type TestWorkspace } from './helpers/workspace';

const VIEW = 'method:web/views.py:View';
const ROUTES = 'method:app/routes.py';
const H = 'method:web/handlers.py';

/** The CALLS edges of one entity: `target` or `target (dispatch)`, sorted. */
function calls(e: Engine, id: string): string[] {
  return e
    .outgoing(id, ['CALLS'])
    .flatMap((x) => (x.target ? [`${x.target}${x.dispatch ? ' (dispatch)' : ''}`] : []))
    .sort();
}

describe('dispatch edges on fixtures/dispatch', () => {
  let ws: TestWorkspace;
  beforeAll(async () => {
    ws = await openWorkspace('dispatch');
  });
  afterAll(() => ws.dispose());

  test('self.m() in a base class: the method it names, and every override below the class', () => {
    expect(calls(ws.engine, `${VIEW}.as_view`)).toEqual([
      `${ROUTES}:ApiView.dispatch_request (dispatch)`,
      `${ROUTES}:JsonApiView.dispatch_request (dispatch)`,
      'method:web/views.py:IndexView.dispatch_request (dispatch)',
      `${VIEW}.dispatch_request`,
    ]);
  });

  test('super().m() names one method; self.m() in a subclass reaches only overrides below it', () => {
    expect(calls(ws.engine, `${ROUTES}:ApiView.dispatch_request`)).toEqual([`${ROUTES}:JsonApiView.render (dispatch)`, `${VIEW}.dispatch_request`, `${VIEW}.render`]);
  });

  test('typed receivers: an annotated parameter, a constructed local, an attribute of known type', () => {
    expect(calls(ws.engine, 'func:app/server.py:serve')).toEqual([`${H}:BaseHandler.handle`, `${H}:JsonHandler.handle (dispatch)`, `${H}:PrettyJsonHandler.handle (dispatch)`, `${H}:XmlHandler.handle (dispatch)`]);
    expect(calls(ws.engine, 'func:app/server.py:serve_json')).toEqual(['class:web/handlers.py:JsonHandler', `${H}:JsonHandler.handle`, `${H}:PrettyJsonHandler.handle (dispatch)`]);
    expect(calls(ws.engine, 'method:app/server.py:Server.stop')).toEqual([`${H}:BaseHandler.close`, `${H}:XmlHandler.close (dispatch)`]);
  });

  test('callers of an override: only through dispatch, and marked so', () => {
    expect(ws.engine.incoming(`${H}:XmlHandler.handle`, ['CALLS']).map((x) => [x.source, x.dispatch])).toEqual([['func:app/server.py:serve', true]]);
    expect(ws.engine.incoming(`${H}:BaseHandler.handle`, ['CALLS']).map((x) => [x.source, x.dispatch])).toEqual([['func:app/server.py:serve', false]]);
  });

  test('stats count dispatch edges apart from the calls the code names', () => {
    const s = ws.engine.stats();
    expect(s.dispatchEdges).toBe(9);
    expect(s.edges.CALLS).toBe(7);
  });

  test('trace marks dispatch edges and follows them; dispatch: false leaves them out', () => {
    const down = ws.engine.trace({ id: `${VIEW}.as_view`, direction: 'down', depth: 2 });
    const edge = (from: string, to: string) => down.adjacency[from]?.find((e) => e.target === to);
    expect(edge(`${VIEW}.as_view`, `${VIEW}.dispatch_request`)).not.toHaveProperty('dispatch');
    expect(edge(`${VIEW}.as_view`, `${ROUTES}:ApiView.dispatch_request`)).toMatchObject({ dispatch: true, resolved: true });
    // Followed: the override's own callees are the second level.
    expect(edge(`${ROUTES}:ApiView.dispatch_request`, `${VIEW}.render`)).toMatchObject({ resolved: true });
    const certain = ws.engine.trace({ id: `${VIEW}.as_view`, direction: 'down', depth: 2, dispatch: false });
    expect(Object.values(certain.adjacency).flat().filter((e) => e.resolved).map((e) => e.target)).toEqual([`${VIEW}.dispatch_request`]);
    const up = ws.engine.trace({ id: `${H}:PrettyJsonHandler.handle`, direction: 'up', depth: 1 });
    expect(up.adjacency[`${H}:PrettyJsonHandler.handle`].map((e) => [e.target, e.dispatch]).sort()).toEqual([
      ['func:app/server.py:serve', true],
      ['func:app/server.py:serve_json', true],
    ]);
    expect(ws.engine.trace({ id: `${H}:PrettyJsonHandler.handle`, direction: 'up', dispatch: false }).adjacency).toEqual({ [`${H}:PrettyJsonHandler.handle`]: [] });
  });

  test('paths go through dispatch edges, marked; not with dispatch: false', () => {
    const p = ws.engine.trace({ id: `${VIEW}.as_view`, direction: 'down', to: `${ROUTES}:JsonApiView.render` });
    expect(p.paths?.[0].hops.map((h) => [h.to, !!h.dispatch])).toEqual([
      [`${ROUTES}:ApiView.dispatch_request`, true],
      [`${ROUTES}:JsonApiView.render`, true],
    ]);
    expect(ws.engine.trace({ id: `${VIEW}.as_view`, direction: 'down', to: `${ROUTES}:JsonApiView.render`, dispatch: false }).paths).toEqual([]);
  });

  test('implementations of a method: its overrides in subclasses', () => {
    expect(ws.engine.implementations(`${H}:BaseHandler.handle`).map((e) => e.id).sort()).toEqual([`${H}:JsonHandler.handle`, `${H}:PrettyJsonHandler.handle`, `${H}:XmlHandler.handle`]);
  });
});

describe('dispatch edges move with overrides and bases (incremental = cold)', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  async function cold(root: string): Promise<string[]> {
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'nsccn-dispatch-cold-'));
    dirs.push(copy);
    fs.cpSync(root, copy, { recursive: true, filter: (s) => path.basename(s) !== '.nsccn' });
    const e = await Engine.open({ root: copy, workers: 0, embeddings: { model: 'none' } });
    await e.indexWorkspace();
    const g = edgeList(e);
    await e.close();
    return g;
  }

  test('an override goes and comes back, a subclass appears in a new file, a class loses its base', async () => {
    const root = copyFixture('dispatch');
    dirs.push(root);
    const e = await Engine.open({ root, workers: 0, embeddings: { model: 'none' } });
    try {
      await e.indexWorkspace();
      const handlers = path.join(root, 'web/handlers.py');
      const original = fs.readFileSync(handlers, 'utf8');
      const stop = 'method:app/server.py:Server.stop';

      // XmlHandler.close goes: Server.stop no longer may call it.
      fs.writeFileSync(handlers, original.replace(/\n    def close\(self\):\n        return None\n$/, '\n'));
      await e.indexWorkspace();
      expect(calls(e, stop)).toEqual([`${H}:BaseHandler.close`]);
      expect(edgeList(e)).toEqual(await cold(root));

      fs.writeFileSync(handlers, original);
      await e.indexWorkspace();
      expect(calls(e, stop)).toEqual([`${H}:BaseHandler.close`, `${H}:XmlHandler.close (dispatch)`]);

      // A subclass in a new file, below a subclass: serve may call it; serve_json too.
      fs.writeFileSync(path.join(root, 'app/yaml.py'), 'from web.handlers import JsonHandler\n\n\nclass YamlHandler(JsonHandler):\n    def handle(self, data):\n        return "yaml"\n');
      await e.indexWorkspace();
      expect(calls(e, 'func:app/server.py:serve_json')).toContain('method:app/yaml.py:YamlHandler.handle (dispatch)');
      expect(calls(e, 'func:app/server.py:serve')).toContain('method:app/yaml.py:YamlHandler.handle (dispatch)');
      expect(edgeList(e)).toEqual(await cold(root));

      // JsonHandler loses its base: BaseHandler calls no longer reach it, nor what is below it.
      fs.writeFileSync(handlers, original.replace('class JsonHandler(BaseHandler):', 'class JsonHandler:'));
      await e.indexWorkspace();
      expect(calls(e, 'func:app/server.py:serve')).toEqual([`${H}:BaseHandler.handle`, `${H}:XmlHandler.handle (dispatch)`]);
      expect(edgeList(e)).toEqual(await cold(root));

      // The intermediate class goes entirely: its subclass's override leaves the tree too.
      fs.rmSync(path.join(root, 'app/yaml.py'));
      fs.writeFileSync(handlers, original);
      await e.indexWorkspace();
      expect(edgeList(e)).toEqual(await cold(root));
      fs.writeFileSync(handlers, original.replace(/class JsonHandler\(BaseHandler\):\n    def handle\(self, data\):\n        return "json"\n/, ''));
      await e.indexWorkspace();
      expect(edgeList(e)).toEqual(await cold(root));

      // A class without the method, between the base and an override in another file: when it
      // goes, the override leaves the tree below BaseHandler; when it comes back, it rejoins.
      fs.writeFileSync(handlers, original);
      fs.writeFileSync(path.join(root, 'app/mid.py'), 'from web.handlers import BaseHandler\n\n\nclass Mid(BaseHandler):\n    pass\n');
      fs.writeFileSync(path.join(root, 'app/leaf.py'), 'from app.mid import Mid\n\n\nclass Leaf(Mid):\n    def handle(self, data):\n        return "leaf"\n');
      await e.indexWorkspace();
      expect(calls(e, 'func:app/server.py:serve')).toContain('method:app/leaf.py:Leaf.handle (dispatch)');
      fs.writeFileSync(path.join(root, 'app/mid.py'), 'from web.handlers import BaseHandler\n');
      await e.indexWorkspace();
      expect(calls(e, 'func:app/server.py:serve')).not.toContain('method:app/leaf.py:Leaf.handle (dispatch)');
      expect(edgeList(e)).toEqual(await cold(root));
      fs.writeFileSync(path.join(root, 'app/mid.py'), 'from web.handlers import BaseHandler\n\n\nclass Mid(BaseHandler):\n    pass\n');
      await e.indexWorkspace();
      expect(calls(e, 'func:app/server.py:serve')).toContain('method:app/leaf.py:Leaf.handle (dispatch)');
      expect(edgeList(e)).toEqual(await cold(root));
    } finally {
      await e.close();
    }
  });
});

describe('the CLI shows "may call"', () => {
  let root: string;
  beforeAll(() => {
    requireBuiltCli();
    root = copyFixture('dispatch');
    expect(runCli(root, 'index').code).toBe(0);
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  test('text: dispatch edges carry [may call: override]; --no-dispatch drops them', () => {
    const text = runCli(root, 'trace', 'func:app/server.py:serve', '--depth', '1');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`→ CALLS to ${H}:BaseHandler.handle (line 5)\n`);
    expect(text.stdout).toContain(`→ CALLS to ${H}:XmlHandler.handle (line 5) [may call: override]`);
    const plain = runCli(root, 'trace', 'func:app/server.py:serve', '--depth', '1', '--no-dispatch');
    expect(plain.stdout).not.toContain('XmlHandler');
    expect(plain.stdout).toContain(`${H}:BaseHandler.handle`);
  });

  test('JSON: the edge has dispatch: true', () => {
    const r = runCli(root, 'trace', 'func:app/server.py:serve', '--depth', '1', '--json');
    const t = JSON.parse(r.stdout) as TraceResult;
    expect(t.adjacency['func:app/server.py:serve'].filter((e) => e.resolved).map((e) => [e.target, e.dispatch ?? false])).toEqual([
      [`${H}:BaseHandler.handle`, false],
      [`${H}:JsonHandler.handle`, true],
      [`${H}:PrettyJsonHandler.handle`, true],
      [`${H}:XmlHandler.handle`, true],
    ]);
  });
});
