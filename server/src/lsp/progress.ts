// Initial indexing in the background. Folders are indexed one after another (each engine
// already uses every core for parsing), under one `window/workDoneProgress` while any work is
// queued. Nothing waits on this: requests answer from what is indexed so far.
import type { Connection, WorkDoneProgressReporter } from 'vscode-languageserver/node';
import type { IndexProgress } from '../engine';
import { describe, type Logger } from './errors';
import type { Workspace, Workspaces } from './workspaces';

/** Minimum time between two progress reports: a client need not repaint per file. */
const REPORT_INTERVAL_MS = 200;
/** The share of a run's percentage its reading phase takes (resolution has the rest). */
const READING_SHARE = 0.75;
/**
 * How long a run waits before it starts. A client (an agent's adapter, an editor restoring a
 * session) often asks right after `initialized`; the first thing a run does on an indexed folder
 * is a stat of every file (~60–150 ms on the stdlib, on the one thread answering requests), and
 * the first answer would wait behind it. It answers from the index as it is either way.
 */
const START_GRACE_MS = 100;

export class BackgroundIndexer {
  private readonly queue: Workspace[] = [];
  private running: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly connection: Connection,
    private readonly workspaces: Workspaces,
    private readonly log: Logger,
    private readonly clientShowsProgress: () => boolean,
  ) {}

  /** Queues folders for indexing; starts the run if none is going. */
  schedule(folders: Workspace[]): void {
    if (this.stopped) return;
    this.queue.push(...folders);
    if (!this.running) {
      this.running = this.run().finally(() => {
        this.running = null;
      });
    }
  }

  /** True while any folder waits for or is in its first index run. */
  busy(): boolean {
    return this.running !== null || this.queue.length > 0;
  }

  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
  }

  private async run(): Promise<void> {
    await new Promise((r) => setTimeout(r, START_GRACE_MS));
    if (this.stopped) return;
    const reporter = await this.createReporter();
    let doneFolders = 0;
    try {
      reporter?.begin('NSCCN: indexing', 0, undefined, false);
      while (this.queue.length && !this.stopped) {
        const ws = this.queue.shift()!;
        if (!this.workspaces.list().includes(ws)) continue; // removed meanwhile
        const total = doneFolders + 1 + this.queue.length;
        let lastReport = 0;
        const onProgress = (p: IndexProgress): void => {
          if (!reporter) return;
          const now = Date.now();
          const finished = p.done >= p.total;
          if (!finished && now - lastReport < REPORT_INTERVAL_MS) return;
          lastReport = now;
          // Reading is about three quarters of a first index, resolution the rest (stdlib 12 + 4 s,
          // site-packages 60 + 22 s): one percentage over both.
          const share = p.phase === 'reading' ? READING_SHARE * p.fraction : READING_SHARE + (1 - READING_SHARE) * p.fraction;
          const what = p.phase === 'reading' ? `${p.done}/${p.total} files` : `resolving ${p.done}/${p.total} references`;
          reporter.report(Math.floor(((doneFolders + share) / total) * 100), `${ws.name}: ${what}`);
        };
        const started = Date.now();
        try {
          const s = await ws.engine.indexWorkspace(onProgress);
          this.log(
            `[${ws.name}] indexed ${s.files} files (${s.parsed} parsed, ${s.unchanged} unchanged, ${s.deleted} deleted, ` +
              `${s.skipped.length} skipped): ${s.entities} entities, ${s.edges} edges in ${((Date.now() - started) / 1000).toFixed(1)} s`,
          );
        } catch (e) {
          if (this.stopped) return;
          const msg = `[${ws.name}] indexing failed: ${describe(e)}`;
          this.log(msg);
          void this.connection.window.showErrorMessage(`NSCCN: ${msg}`);
        } finally {
          ws.pendingIndex = false;
        }
        doneFolders++;
      }
    } finally {
      reporter?.done();
    }
  }

  private async createReporter(): Promise<WorkDoneProgressReporter | null> {
    if (!this.clientShowsProgress()) return null;
    try {
      return await this.connection.window.createWorkDoneProgress();
    } catch (e) {
      this.log(`no progress reporting: ${describe(e)}`);
      return null;
    }
  }
}
