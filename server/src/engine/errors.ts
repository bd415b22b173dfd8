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
