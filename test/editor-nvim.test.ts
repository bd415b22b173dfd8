// End to end in a real Neovim: headless `nvim -u NONE` loads clients/nvim, opens a copy of the
// shop fixture and talks to the real server through the plugin (default command `nsccn lsp
// --stdio`, a shim on PATH runs this checkout's build). A Lua driver records what the editor
// saw as JSON; the assertions are here.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLIENTS, editorWorkspace, findBinary, run, type EditorWorkspace, type RunResult } from './helpers/editors';

const NVIM = findBinary('nvim', /NVIM v0\.(1\d|[2-9]\d)|NVIM v[1-9]/);
const SKIP = 'SKIPPED: Neovim >= 0.10 not found (PATH, $NSCCN_NVIM or /opt/editors/bin; install with ../shared/tools/install-editors.sh)';

/** The driver: every step waits on a condition, never on a fixed sleep. */
const DRIVER = String.raw`
local cfg = vim.json.decode(vim.env.NSCCN_TEST_CONFIG)
local results = { notifications = {} }
local function wait(ms, cond, what)
  if not vim.wait(ms, cond, 50) then error('timed out waiting for ' .. what) end
end
local function find_line(lines, needle)
  for i, l in ipairs(lines) do
    local c = l:find(needle, 1, true)
    if c then return i, c end
  end
  error(needle .. ' not found')
end
-- Messages the plugin shows (errors for bad input) are part of what the test checks.
vim.notify = function(msg, level) table.insert(results.notifications, { msg = msg, level = level }) end

local ok, err = xpcall(function()
  vim.opt.rtp:prepend(cfg.client)
  vim.cmd('filetype on')
  require('nsccn').setup({})
  vim.cmd('edit ' .. vim.fn.fnameescape(cfg.root .. '/shop/models.py'))
  local src_buf, src_win = vim.api.nvim_get_current_buf(), vim.api.nvim_get_current_win()
  wait(20000, function() return #vim.lsp.get_clients({ name = 'nsccn', bufnr = src_buf }) > 0 end, 'the nsccn client to attach')
  local client = vim.lsp.get_clients({ name = 'nsccn', bufnr = src_buf })[1]
  results.client = { root_dir = client.root_dir or client.config.root_dir, cmd = client.config.cmd }
  local function req(method, params, ms)
    local r, e = client.request_sync(method, params, ms or 10000, src_buf)
    if not r then error(method .. ': ' .. tostring(e)) end
    if r.err then error(method .. ': ' .. r.err.message) end
    return r.result
  end
  wait(20000, function() return req('nsccn/status', {}, 5000).state == 'ready' end, 'the initial index')

  local uri = vim.uri_from_bufnr(src_buf)
  results.symbols = req('textDocument/documentSymbol', { textDocument = { uri = uri } })
  local src_lines = vim.api.nvim_buf_get_lines(src_buf, 0, -1, false)
  local row, col = find_line(src_lines, 'def rename(')
  local rename_pos = { line = row - 1, character = col - 1 + #'def ' }
  local items = req('textDocument/prepareCallHierarchy', { textDocument = { uri = uri }, position = rename_pos })
  results.prepared = items
  results.outgoing = req('callHierarchy/outgoingCalls', { item = items[1] })

  -- :NsccnSkeleton, then <CR> on the signature of rename jumps back to the source.
  vim.cmd('NsccnSkeleton')
  wait(10000, function() return vim.b.nsccn_skeleton ~= nil end, 'the skeleton buffer')
  local sk_buf = vim.api.nvim_get_current_buf()
  local sk_lines = vim.api.nvim_buf_get_lines(sk_buf, 0, -1, false)
  results.skeleton = {
    name = vim.api.nvim_buf_get_name(sk_buf), lines = sk_lines, buftype = vim.bo[sk_buf].buftype,
    modifiable = vim.bo[sk_buf].modifiable, windows = #vim.api.nvim_tabpage_list_wins(0),
  }
  vim.api.nvim_win_set_cursor(0, { (find_line(sk_lines, 'def rename(')), 0 })
  vim.api.nvim_feedkeys(vim.keycode('<CR>'), 'x', false)
  results.jump = {
    file = vim.api.nvim_buf_get_name(0), line = vim.api.nvim_win_get_cursor(0)[1],
    text = vim.api.nvim_get_current_line(), in_source_window = vim.api.nvim_get_current_win() == src_win,
  }

  -- :NsccnSearch fills the quickfix list.
  vim.cmd('NsccnSearch charge')
  wait(10000, function() return vim.fn.getqflist({ title = 1 }).title:find('NSCCN search', 1, true) ~= nil end, 'search results')
  local qf = vim.fn.getqflist({ items = 1, title = 1 })
  results.search = { title = qf.title, items = {} }
  for _, it in ipairs(qf.items) do
    table.insert(results.search.items, { file = vim.api.nvim_buf_get_name(it.bufnr), lnum = it.lnum, text = it.text })
  end

  -- :NsccnTrace down with the cursor on rename fills the source window's location list.
  vim.api.nvim_set_current_win(src_win)
  vim.api.nvim_win_set_cursor(src_win, { rename_pos.line + 1, rename_pos.character })
  vim.cmd('NsccnTrace down')
  wait(10000, function() return vim.fn.getloclist(src_win, { title = 1 }).title:find('NSCCN trace', 1, true) ~= nil end, 'trace results')
  local ll = vim.fn.getloclist(src_win, { items = 1, title = 1 })
  results.trace = { title = ll.title, items = {} }
  for _, it in ipairs(ll.items) do
    table.insert(results.trace.items, { file = vim.api.nvim_buf_get_name(it.bufnr), lnum = it.lnum, text = it.text })
  end

  -- Code lenses are on and resolved; running the one on Order.__init__ lists its callers.
  vim.api.nvim_set_current_win(src_win)
  local init_row = find_line(src_lines, 'def __init__(self, user')
  local function lens_on(line)
    for _, l in ipairs(vim.lsp.codelens.get(src_buf)) do
      if l.range.start.line == line - 1 and l.command and l.command.title ~= '' then return l end
    end
  end
  wait(15000, function() return lens_on(init_row) ~= nil end, 'a resolved code lens on Order.__init__')
  local init_lens = lens_on(init_row)
  results.lens = { title = init_lens.command.title, command = init_lens.command.command, count = #vim.lsp.codelens.get(src_buf) }
  vim.api.nvim_win_set_cursor(src_win, { init_row, 4 })
  vim.lsp.codelens.run()
  wait(10000, function() return vim.fn.getloclist(src_win, { title = 1 }).title:find('NSCCN callers', 1, true) ~= nil end, 'the callers of the lens')
  local callers = vim.fn.getloclist(src_win, { items = 1, title = 1 })
  results.lens_callers = { title = callers.title, items = {} }
  for _, it in ipairs(callers.items) do
    table.insert(results.lens_callers.items, { file = vim.api.nvim_buf_get_name(it.bufnr), lnum = it.lnum, text = it.text })
  end

  -- :NsccnChanges: the edit the test made to _write after the commit.
  vim.cmd('NsccnChanges')
  wait(10000, function() return vim.fn.getqflist({ title = 1 }).title:find('NSCCN changes', 1, true) ~= nil end, 'changes')
  local ch = vim.fn.getqflist({ items = 1, title = 1 })
  results.changes = { title = ch.title, items = {} }
  for _, it in ipairs(ch.items) do
    table.insert(results.changes.items, { file = vim.api.nvim_buf_get_name(it.bufnr), lnum = it.lnum, text = it.text })
  end

  -- Bad input is a message, not a Lua error.
  vim.api.nvim_set_current_win(src_win)
  vim.cmd('NsccnTrace sideways')
end, debug.traceback)

if not ok then results.error = err end
vim.fn.writefile({ vim.json.encode(results) }, cfg.out)
vim.cmd(ok and 'qa!' or 'cq!')
`;

interface Range {
  start: { line: number; character: number };
  end: { line: number; character: number };
}
interface Sym {
  name: string;
  kind: number;
  range: Range;
  children?: Sym[];
}
interface Item {
  name: string;
  uri: string;
  data?: { id?: string };
}
interface ListItem {
  file: string;
  lnum: number;
  text: string;
}
interface Results {
  error?: string;
  notifications: Array<{ msg: string; level: number }>;
  client: { root_dir: string; cmd: string[] };
  symbols: Sym[];
  prepared: Item[];
  outgoing: Array<{ to: Item; fromRanges: Range[] }>;
  skeleton: { name: string; lines: string[]; buftype: string; modifiable: boolean; windows: number };
  jump: { file: string; line: number; text: string; in_source_window: boolean };
  search: { title: string; items: ListItem[] };
  trace: { title: string; items: ListItem[] };
  lens: { title: string; command: string; count: number };
  lens_callers: { title: string; items: ListItem[] };
  changes: { title: string; items: ListItem[] };
}

describe.skipIf(!NVIM)(`Neovim: clients/nvim against the real server${NVIM ? '' : ` — ${SKIP}`}`, () => {
  let ws: EditorWorkspace;
  let res: Results;
  let proc: RunResult;
  const abs = (rel: string) => path.join(ws.root, rel);

  beforeAll(async () => {
    ws = editorWorkspace('nsccn-nvim-');
    // The plugin roots the workspace at the nearest marker; Neovim runs from elsewhere so the
    // cwd fallback cannot be what finds it.
    fs.writeFileSync(path.join(ws.root, 'pyproject.toml'), '[project]\nname = "shop"\n');
    // A git history for :NsccnChanges: everything committed, then one line of _write edited.
    const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' };
    for (const args of [['init', '-q'], ['add', '-A'], ['commit', '-qm', 'base']]) execFileSync('git', args, { cwd: ws.root, env: gitEnv });
    const base = path.join(ws.root, 'shop/base.py');
    fs.writeFileSync(base, fs.readFileSync(base, 'utf8').replace('return (table, row)', 'return (table, dict(row))'));
    const driver = path.join(ws.scratch, 'driver.lua');
    const out = path.join(ws.scratch, 'results.json');
    fs.writeFileSync(driver, DRIVER);
    const env = { ...ws.env, NSCCN_TEST_CONFIG: JSON.stringify({ client: path.join(CLIENTS, 'nvim'), root: ws.root, out }) };
    proc = await run(NVIM!, ['--headless', '-u', 'NONE', '-i', 'NONE', '-n', '-c', `luafile ${driver}`], { cwd: ws.scratch, env, timeoutMs: 35_000 });
    if (!fs.existsSync(out)) {
      throw new Error(`nvim wrote no results (exit ${proc.code}, timed out: ${proc.timedOut})\nstderr: ${proc.stderr}\nstdout: ${proc.stdout}`);
    }
    res = JSON.parse(fs.readFileSync(out, 'utf8')) as Results;
  }, 40_000);

  afterAll(() => ws?.cleanup());

  it('runs the whole script without a Lua error and exits cleanly', () => {
    expect(res.error ?? null, `messages: ${JSON.stringify(res.notifications)}`).toBeNull();
    expect(proc.timedOut).toBe(false);
    expect(proc.code).toBe(0);
  });

  it('starts the server with the default command, rooted at the nearest pyproject.toml', () => {
    expect(res.client.cmd).toEqual(['nsccn', 'lsp', '--stdio']);
    expect(res.client.root_dir).toBe(ws.root);
  });

  it('lists the document symbols of shop/models.py, methods nested under their class', () => {
    expect(res.symbols.map((s) => s.name)).toEqual(['User', 'Order', 'price_of']);
    const user = res.symbols[0];
    expect(user.children!.filter((c) => c.kind === 6).map((c) => c.name)).toEqual(['__init__', 'rename']);
  });

  it('follows the outgoing calls of User.rename to Model.save in shop/base.py', () => {
    expect(res.prepared).toHaveLength(1);
    expect(res.prepared[0].name).toBe('rename');
    const to = res.outgoing.map((c) => c.to);
    const save = to.find((t) => t.name === 'save');
    expect(save, JSON.stringify(to)).toBeDefined();
    expect(save!.uri).toBe(`file://${abs('shop/base.py')}`);
    // The call site `self.save()` is on line 19 (0-based 18) of models.py.
    const call = res.outgoing.find((c) => c.to.name === 'save')!;
    expect(call.fromRanges[0].start.line).toBe(18);
  });

  it(':NsccnSkeleton opens a read-only scratch split with the skeleton text', () => {
    const sk = res.skeleton;
    expect(sk.lines).toContain('    def rename(self, name: str) -> None:');
    expect(sk.lines).toContain('class Order(Model):');
    // Bodies are elided: the assignment inside rename is not in the skeleton.
    expect(sk.lines.join('\n')).not.toContain('self.name = name');
    expect(sk.buftype).toBe('nofile');
    expect(sk.modifiable).toBe(false);
    expect(sk.windows).toBe(2);
    expect(sk.name).toBe('nsccn://skeleton/shop/models.py');
  });

  it('<CR> in the skeleton jumps to the entity in the source window', () => {
    expect(res.jump.file).toBe(abs('shop/models.py'));
    expect(res.jump.line).toBe(16);
    expect(res.jump.text).toContain('def rename(self, name: str) -> None:');
    expect(res.jump.in_source_window).toBe(true);
  });

  it(':NsccnSearch puts the hits in the quickfix list, best first', () => {
    expect(res.search.title).toBe('NSCCN search: charge');
    const first = res.search.items[0];
    expect(first).toEqual({ file: abs('shop/services/payments.py'), lnum: 4, text: '[function] def charge(user, amount)' });
  });

  it(':NsccnTrace down puts the causal trace from the cursor in the location list', () => {
    expect(res.trace.title).toBe('NSCCN trace down: method:shop/models.py:User.rename');
    const items = res.trace.items;
    // Resolved callees open at their definition; deeper levels are indented under their node.
    expect(items[0]).toEqual({
      file: abs('shop/base.py'),
      lnum: 25,
      text: 'CALLS -> method:shop/base.py:Model.save  def save(self)',
    });
    expect(items).toContainEqual({ file: abs('shop/base.py'), lnum: 31, text: '  CALLS -> func:shop/base.py:_write  def _write(table, row)' });
    // A name the graph cannot resolve (the builtin vars) opens at its call site.
    expect(items).toContainEqual({ file: abs('shop/base.py'), lnum: 28, text: '  CALLS -> vars  (unresolved)' });
  });

  it('turns code lenses on; running one puts the callers in the location list', () => {
    expect(res.lens.title).toBe('1 caller · 1 callee');
    expect(res.lens.command).toBe('nsccn.showCallers');
    expect(res.lens.count).toBeGreaterThan(4);
    expect(res.lens_callers.title).toBe('NSCCN callers: method:shop/models.py:Order.__init__');
    expect(res.lens_callers.items).toEqual([
      { file: abs('shop/services/checkout.py'), lnum: 9, text: 'CALLS <- func:shop/services/checkout.py:checkout  def checkout(user: User, skus)' },
    ]);
  });

  it(':NsccnChanges lists the edited function with its callers', () => {
    expect(res.changes.title).toBe('NSCCN changes HEAD → working tree');
    expect(res.changes.items).toEqual([
      {
        file: abs('shop/base.py'),
        lnum: 31,
        text: 'modified func:shop/base.py:_write  callers: func:shop/services/checkout.py:checkout, method:shop/base.py:Model.save, method:shop/models.py:User.rename',
      },
    ]);
  });

  it('reports a bad trace direction as a message', () => {
    const msgs = res.notifications.map((n) => n.msg);
    expect(msgs.some((m) => /unknown direction "sideways"/.test(m))).toBe(true);
  });
});
