// End to end in a real Helix: `hx` runs in a private tmux server on a copy of the shop fixture,
// configured only by clients/helix/languages.toml (copied verbatim into a temp
// XDG_CONFIG_HOME; its `nsccn` command is a shim on PATH that runs this checkout's build). The
// test opens the document symbol picker (`space s`) and reads the screen.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLIENTS, Tmux, editorWorkspace, findBinary, helixRuntime, waitFor, type EditorWorkspace } from './helpers/editors';
import { sleep } from './helpers/lsp-client';

const HX = findBinary('hx', /helix (2[3-9]|[3-9]\d)\./);
const TMUX = findBinary('tmux');
const SKIP = `SKIPPED: ${HX ? '' : 'Helix >= 23 (hx) '}${!HX && !TMUX ? 'and ' : ''}${TMUX ? '' : 'tmux '}not found (PATH, $NSCCN_HX / $NSCCN_TMUX or /opt/editors/bin; install with ../shared/tools/install-editors.sh)`;
const SESSION = 'hx';

/** Rows of Helix's symbol picker: `│ > method   rename   │` → ['method', 'rename']. */
function pickerRows(screen: string): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  const kinds = 'file|module|namespace|package|class|method|property|field|constructor|enum|interface|function|variable|constant|string|number|boolean|array|object|key|null|enum_member|struct|event|operator|type_parameter';
  const re = new RegExp(`│\\s*>?\\s*(${kinds})\\s+(\\S+)\\s`);
  for (const line of screen.split('\n')) {
    const m = re.exec(line);
    if (m) rows.push([m[1], m[2]]);
  }
  return rows;
}

describe.skipIf(!HX || !TMUX)(`Helix: clients/helix/languages.toml against the real server${HX && TMUX ? '' : ` — ${SKIP}`}`, () => {
  let ws: EditorWorkspace;
  let tmux: Tmux;
  let screen = '';
  let log = '';

  beforeAll(async () => {
    ws = editorWorkspace('nsccn-helix-');
    const configDir = path.join(ws.env.XDG_CONFIG_HOME!, 'helix');
    fs.mkdirSync(configDir, { recursive: true });
    fs.copyFileSync(path.join(CLIENTS, 'helix', 'languages.toml'), path.join(configDir, 'languages.toml'));
    const runtime = helixRuntime();
    const env = { ...ws.env, TERM: 'xterm-256color', ...(runtime ? { HELIX_RUNTIME: runtime } : {}) };
    tmux = new Tmux(TMUX!, ws.scratch, env);
    const logFile = path.join(ws.scratch, 'helix.log');
    await tmux.start(SESSION, ws.root, [HX!, '-v', '--log', logFile, 'shop/models.py']);
    try {
      // Helix is up when its status line shows the file; the server is up once it has
      // created its index. Then the picker is retried until the server answers with symbols.
      await waitFor(async () => (await tmux.capture(SESSION)).includes('shop/models.py'), 10_000, 'Helix to show shop/models.py');
      await waitFor(() => fs.existsSync(path.join(ws.root, '.nsccn', 'index.db')), 10_000, 'the nsccn server to create its index');
      screen = await waitFor(
        async () => {
          await tmux.send(SESSION, 'Space', 's');
          const shown = await waitFor(
            async () => {
              const s = await tmux.capture(SESSION);
              return pickerRows(s).length > 0 ? s : undefined;
            },
            3_000,
            'the symbol picker',
          ).catch(() => undefined);
          if (shown) return shown;
          await tmux.send(SESSION, 'Escape'); // close whatever opened (an error, an empty picker)
          await sleep(300);
          return undefined;
        },
        15_000,
        'document symbols in the picker',
      );
    } finally {
      if (fs.existsSync(logFile)) log = fs.readFileSync(logFile, 'utf8');
    }
  }, 40_000);

  afterAll(async () => {
    if (tmux) {
      // Quit Helix properly (it shuts the server down), then end our tmux server.
      await tmux.send(SESSION, 'Escape').catch(() => undefined);
      await tmux.send(SESSION, ':qa!', 'Enter').catch(() => undefined);
      await waitFor(async () => !(await tmux.alive(SESSION)), 5_000, 'Helix to quit').catch(() => undefined);
      await tmux.kill();
    }
    ws?.cleanup();
  }, 15_000);

  it('starts nsccn for Python buffers from the shipped languages.toml, rooted at the working directory', () => {
    // Helix logs every message (with -v) as `<server> -> {json}` / `<server> <- {json}`.
    const sent = log.split('\n').filter((l) => l.includes(' nsccn -> '));
    const init = sent.find((l) => l.includes('"method":"initialize"'));
    expect(init, log.slice(0, 2000)).toBeDefined();
    // Without a root marker Helix roots the workspace at its working directory and sends it
    // only as the legacy rootPath (rootUri null, no workspaceFolders); the server honours it.
    expect(init).toContain(`"rootPath":${JSON.stringify(ws.root)}`);
    expect(sent.some((l) => l.includes('"method":"textDocument/didOpen"') && l.includes('shop/models.py'))).toBe(true);
    expect(fs.existsSync(path.join(ws.root, '.nsccn', 'index.db'))).toBe(true);
  });

  it('shows the document symbols of shop/models.py in the symbol picker (space s)', () => {
    const rows = pickerRows(screen);
    expect(rows, screen).toContainEqual(['method', 'rename']);
    expect(rows, screen).toContainEqual(['class', 'Order']);
    expect(rows, screen).toContainEqual(['class', 'User']);
    expect(rows, screen).toContainEqual(['function', 'price_of']);
    // The picker's rows came from nsccn: Helix asked it for the document's symbols.
    expect(log).toMatch(/ nsccn -> \{[^\n]*"method":"textDocument\/documentSymbol"/);
  });
});
