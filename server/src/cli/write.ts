// A command's answer (fd 1) and its timing line (fd 2), written with write(2). The first use of
// `process.stdout` or `process.stderr` builds Node's stream for it, and loads the stream modules
// to do so: ~3 ms of every command (CPU profile of `nsccn trace` on the 40-file bench project,
// 8 runs: `print` 4.2 ms, 3.2 of them in the `process.stdout` getter). Each is one string
// written once: nothing a stream adds is needed.
import * as fs from 'node:fs';

/** How long to wait, at most, for a reader that keeps a full non-blocking pipe full. */
const STALL_MS = 60_000;

/**
 * Writes `text` whole to `fd`. A pipe whose reader has gone (`nsccn search … | head -1`) ends
 * the writing quietly, as the shell's own tools do; a non-blocking pipe that is full is waited on.
 */
export function writeWhole(fd: 1 | 2, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let off = 0;
  let stalledSince = 0;
  while (off < bytes.length) {
    try {
      off += fs.writeSync(fd, bytes, off, bytes.length - off);
      stalledSince = 0;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EPIPE') return;
      if (code !== 'EAGAIN') throw e;
      stalledSince ||= Date.now();
      if (Date.now() - stalledSince > STALL_MS) throw e;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1); // 1 ms, then try again
    }
  }
}
