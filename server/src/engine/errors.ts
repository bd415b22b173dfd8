// Errors are values at the edges: every failure a user can cause carries a protocol error code
// and a message that says what was wrong, so faces can map it to a JSON-RPC error or exit code.
import { ErrorCodes, type ErrorData } from '../../../protocol';

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export class EngineError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data?: ErrorData,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

export function isEngineError(e: unknown): e is EngineError {
  return e instanceof EngineError;
}

/**
 * An engine error for a failure of the index database itself (another process holding its
 * lock past the busy timeout, a file damaged while open), so that every face reports it the
 * same clear way; other errors are returned as they are.
 */
export function fromStoreError(e: unknown): unknown {
  const code = (e as { code?: unknown })?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return e;
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
    return new EngineError(ErrorCodes.IndexUnavailable, 'the index is busy: another nsccn process is writing it; try again when it is done');
  }
  if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') {
    return new EngineError(ErrorCodes.IndexUnavailable, 'the index file is damaged; it is rebuilt the next time nsccn opens it (or delete .nsccn)');
  }
  if (code.startsWith('SQLITE_FULL')) {
    return new EngineError(ErrorCodes.IndexUnavailable, 'the disk holding the index is full: free some space and run again (what was committed is kept; the next run completes it)');
  }
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN')) {
    return new EngineError(ErrorCodes.IndexUnavailable, `the index cannot be written (${code}): check disk space and permissions of .nsccn`);
  }
  return e;
}
