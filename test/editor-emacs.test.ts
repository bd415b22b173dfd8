// End to end in a real Emacs: `emacs --batch -Q -l driver.el` loads clients/emacs/nsccn.el,
// connects Eglot to the real server (default command `nsccn lsp --stdio`, a shim on PATH runs
// this checkout's build) for a copy of the shop fixture, and records what it got as JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLIENTS, editorWorkspace, findBinary, run, type EditorWorkspace, type RunResult } from './helpers/editors';

const EMACS = findBinary('emacs', /GNU Emacs (29|[3-9]\d)\./);
const SKIP = 'SKIPPED: Emacs >= 29 (with Eglot) not found (PATH, $NSCCN_EMACS; install with ../shared/tools/install-editors.sh)';

/** The driver: waits on conditions (Eglot managing the buffer, the index being ready). */
const DRIVER = String.raw`;;; driver.el --- NSCCN editor test  -*- lexical-binding: t; -*-
(require 'eglot)
(require 'json)
(defvar nsccn-test-results nil)
(defun nsccn-test-put (key value) (push (cons key value) nsccn-test-results))
(defun nsccn-test-wait (seconds what pred)
  (let ((deadline (+ (float-time) seconds)))
    (while (not (funcall pred))
      (when (> (float-time) deadline) (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.05))))
(defun nsccn-test-symbols (syms)
  "Document symbols as a list of objects with name, kind and children."
  (mapcar (lambda (s)
            (list (cons 'name (plist-get s :name)) (cons 'kind (plist-get s :kind))
                  (cons 'children (vconcat (nsccn-test-symbols (append (plist-get s :children) nil))))))
          syms))
(defun nsccn-test-buffer-text (name)
  (with-current-buffer name (buffer-substring-no-properties (point-min) (point-max))))

(let ((root (getenv "NSCCN_TEST_ROOT")) (ok nil))
  (condition-case err
      (progn
        (add-to-list 'load-path (getenv "NSCCN_TEST_CLIENT"))
        (require 'nsccn)
        (nsccn-eglot-setup)
        ;; The workspace root is a plain folder with a pyproject.toml (no VC).
        (setq project-vc-extra-root-markers '("pyproject.toml"))
        (add-hook 'python-base-mode-hook #'eglot-ensure)
        (let ((source (find-file-noselect (expand-file-name "shop/models.py" root))))
          (set-buffer source)
          (nsccn-test-put 'mode (symbol-name major-mode))
          ;; eglot-ensure connects after the next command; batch mode runs no command loop.
          (run-hooks 'post-command-hook)
          (nsccn-test-wait 20 "Eglot to manage shop/models.py" #'eglot-managed-p)
          (let ((server (eglot-current-server))
                (uri (eglot-path-to-uri buffer-file-name)))
            (nsccn-test-put 'class (symbol-name (eieio-object-class-name server)))
            (nsccn-test-put 'folders (mapcar (lambda (f) (plist-get f :uri)) (eglot-workspace-folders server)))
            (nsccn-test-wait 20 "the initial index"
                             (lambda () (equal (plist-get (jsonrpc-request server :nsccn/status nil) :state) "ready")))
            ;; Standard LSP through Eglot's connection.
            (nsccn-test-put 'symbols
                            (vconcat (nsccn-test-symbols
                                      (append (jsonrpc-request server :textDocument/documentSymbol
                                                               (list :textDocument (list :uri uri)))
                                              nil))))
            ;; nsccn/trace by id with jsonrpc-request, as any Eglot user can.
            (let ((trace (jsonrpc-request server :nsccn/trace '(:id "func:shop/base.py:_write" :direction "up"))))
              (nsccn-test-put 'trace_root (plist-get trace :root))
              (nsccn-test-put 'trace_callers
                              (mapcar (lambda (e) (plist-get e :target))
                                      (plist-get (plist-get trace :adjacency) :func:shop/base.py:_write))))
            ;; The package's commands.
            (nsccn-test-put 'trace_edges
                            (mapcar (lambda (fe) (format "%s -> %s" (car fe) (plist-get (cdr fe) :target)))
                                    (nsccn-trace-edges (nsccn-trace-request "up" "func:shop/base.py:_write"))))
            (goto-char (point-min))
            (search-forward "def rename")
            (nsccn-test-put 'trace_at_point_root (plist-get (nsccn-trace-request "down") :root))
            (nsccn-trace "up" "func:shop/base.py:_write")
            (nsccn-test-put 'trace_xref (nsccn-test-buffer-text "*xref*"))
            (set-buffer source)
            (nsccn-search "charge")
            (nsccn-test-put 'search_xref (nsccn-test-buffer-text "*xref*"))
            (set-buffer source)
            (nsccn-test-put 'bad_direction
                            (condition-case e (progn (nsccn-trace "sideways") "no error")
                              (user-error (error-message-string e))))
            (set-buffer source)
            (nsccn-changes)
            (nsccn-test-put 'changes_xref (nsccn-test-buffer-text "*xref*"))
            (set-buffer source)
            (goto-char (point-min))
            (search-forward "def __init__(self, user")
            (nsccn-callers)
            (nsccn-test-put 'callers_xref (nsccn-test-buffer-text "*xref*"))
            (set-buffer source)
            (goto-char (point-min))
            (search-forward "def price_of")
            (let ((w (nsccn-window)))
              (nsccn-test-put 'window_name (buffer-name w))
              (nsccn-test-put 'window_text (with-current-buffer w (buffer-substring-no-properties (point-min) (point-max)))))
            (set-buffer source)
            (let ((skeleton (nsccn-skeleton)))
              (set-buffer skeleton)
              (nsccn-test-put 'skeleton_mode (symbol-name major-mode))
              (nsccn-test-put 'skeleton_text (buffer-substring-no-properties (point-min) (point-max)))
              (goto-char (point-min))
              (search-forward "def rename(")
              (nsccn-skeleton-goto)
              (nsccn-test-put 'jump (list (cons 'file buffer-file-name)
                                          (cons 'line (line-number-at-pos (point) t)))))
            (eglot-shutdown server)))
        (setq ok t))
    (error (nsccn-test-put 'error (error-message-string err))))
  (with-temp-file (getenv "NSCCN_TEST_OUT") (insert (json-encode nsccn-test-results)))
  (kill-emacs (if ok 0 1)))
`;

interface Sym {
  name: string;
  kind: number;
  children: Sym[];
}
interface Results {
  error?: string;
  mode: string;
  class: string;
  folders: string[];
  symbols: Sym[];
  trace_root: string;
  trace_callers: string[];
  trace_edges: string[];
  trace_at_point_root: string;
  trace_xref: string;
  search_xref: string;
  bad_direction: string;
  skeleton_mode: string;
  skeleton_text: string;
  jump: { file: string; line: number };
  changes_xref: string;
  callers_xref: string;
  window_name: string;
  window_text: string;
}

describe.skipIf(!EMACS)(`Emacs: clients/emacs/nsccn.el with Eglot against the real server${EMACS ? '' : ` — ${SKIP}`}`, () => {
  let ws: EditorWorkspace;
  let res: Results;
  let proc: RunResult;

  beforeAll(async () => {
    ws = editorWorkspace('nsccn-emacs-');
    fs.writeFileSync(path.join(ws.root, 'pyproject.toml'), '[project]\nname = "shop"\n');
    // A git history for nsccn-changes: everything committed, then one line of _write edited.
    const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' };
    for (const args of [['init', '-q'], ['add', '-A'], ['commit', '-qm', 'base']]) execFileSync('git', args, { cwd: ws.root, env: gitEnv });
    const base = path.join(ws.root, 'shop/base.py');
    fs.writeFileSync(base, fs.readFileSync(base, 'utf8').replace('return (table, row)', 'return (table, dict(row))'));
    const driver = path.join(ws.scratch, 'driver.el');
    const out = path.join(ws.scratch, 'results.json');
    fs.writeFileSync(driver, DRIVER);
    const env = { ...ws.env, NSCCN_TEST_ROOT: ws.root, NSCCN_TEST_OUT: out, NSCCN_TEST_CLIENT: path.join(CLIENTS, 'emacs') };
    proc = await run(EMACS!, ['--batch', '-Q', '-l', driver], { cwd: ws.root, env, timeoutMs: 35_000 });
    if (!fs.existsSync(out)) {
      throw new Error(`emacs wrote no results (exit ${proc.code}, timed out: ${proc.timedOut})\nstderr: ${proc.stderr}`);
    }
    res = JSON.parse(fs.readFileSync(out, 'utf8')) as Results;
  }, 40_000);

  afterAll(() => ws?.cleanup());

  it('runs the whole driver without an error and exits cleanly', () => {
    expect(res.error ?? null, proc.stderr).toBeNull();
    expect(proc.timedOut).toBe(false);
    expect(proc.code).toBe(0);
  });

  it('connects Eglot with the nsccn server class for python-mode, rooted at the project', () => {
    expect(res.mode).toMatch(/^python(-ts)?-mode$/);
    expect(res.class).toBe('nsccn-eglot-server');
    expect(res.folders).toEqual([`file://${ws.root}`]);
  });

  it('gets the document symbols of shop/models.py through Eglot', () => {
    expect(res.symbols.map((s) => s.name)).toEqual(['User', 'Order', 'price_of']);
    expect(res.symbols[0].children.filter((c) => c.kind === 6).map((c) => c.name)).toEqual(['__init__', 'rename']);
  });

  it('nsccn/trace up from _write lists Model.save (and checkout) among the callers', () => {
    expect(res.trace_root).toBe('func:shop/base.py:_write');
    expect(res.trace_callers).toContain('method:shop/base.py:Model.save');
    expect(res.trace_callers).toContain('func:shop/services/checkout.py:checkout');
    // Depth-first through the package: rename is reached through save.
    expect(res.trace_edges).toContain('method:shop/base.py:Model.save -> method:shop/models.py:User.rename');
  });

  it('nsccn-trace names the entity at point when no id is given', () => {
    expect(res.trace_at_point_root).toBe('method:shop/models.py:User.rename');
  });

  it('nsccn-trace shows callers at their call sites in an xref buffer', () => {
    // xref groups by file; the line is the call site (base.py:28 is `return _write(...)`).
    expect(res.trace_xref).toMatch(/shop\/base\.py\n\s*28:CALLS <- method:shop\/base\.py:Model\.save {2}def save\(self\)/);
    expect(res.trace_xref).toMatch(/shop\/services\/checkout\.py\n\s*13:CALLS <- func:shop\/services\/checkout\.py:checkout/);
  });

  it('nsccn-search lists the hits in an xref buffer', () => {
    expect(res.search_xref).toMatch(/shop\/services\/payments\.py\n\s*4:\[function\] def charge\(user, amount\)/);
  });

  it('nsccn-changes lists the edited function with its callers in an xref buffer', () => {
    expect(res.changes_xref).toMatch(/shop\/base\.py\n\s*31:modified func:shop\/base\.py:_write {2}callers: func:shop\/services\/checkout\.py:checkout, method:shop\/base\.py:Model\.save, method:shop\/models\.py:User\.rename/);
  });

  it('nsccn-callers lists the callers of the entity at point (the code lens action)', () => {
    expect(res.callers_xref).toMatch(/shop\/services\/checkout\.py\n\s*9:CALLS <- func:shop\/services\/checkout\.py:checkout {2}def checkout\(user: User, skus\)/);
  });

  it('nsccn-window shows the entity at point with line numbers', () => {
    expect(res.window_name).toBe('*nsccn-window: func:shop/models.py:price_of*');
    expect(res.window_text).toContain('shop/models.py:');
    expect(res.window_text).toMatch(/\d+ \| def price_of\(sku: str\) -> float:\n\d+ \| {5}"""Look up the unit price of a product\."""/);
  });

  it('rejects a bad trace direction with a clear message', () => {
    expect(res.bad_direction).toMatch(/unknown direction "sideways"/);
  });

  it('nsccn-skeleton shows the skeleton; RET jumps to the source line', () => {
    expect(res.skeleton_mode).toBe('nsccn-skeleton-mode');
    expect(res.skeleton_text).toContain('    def rename(self, name: str) -> None:\n');
    expect(res.skeleton_text).not.toContain('self.name = name');
    expect(res.jump).toEqual({ file: path.join(ws.root, 'shop/models.py'), line: 16 });
  });
});
