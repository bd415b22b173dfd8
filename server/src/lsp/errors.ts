// Errors are values at the edges: every failure inside a handler becomes a JSON-RPC error with
// the engine's code and message (so clients and the MCP adapter see the same codes the CLI
// prints), and nothing a client sends can take the server down.
import { LSPErrorCodes, ResponseError, ErrorCodes as RpcErrorCodes, type CancellationToken } from 'vscode-languageserver/node';
import { ErrorCodes, type ErrorData } from '../../../protocol';
import { EngineError, fromStoreError, isEngineError } from '../engine';

export type Logger = (message: string) => void;

/** An InvalidParams error the handlers throw while validating what a client sent. */
export function invalidParams(method: string, message: string): EngineError {
  return new EngineError(ErrorCodes.InvalidParams, `${method}: ${message}`);
}

/** Maps anything thrown by a handler to the ResponseError sent back. */
export function toResponseError(method: string, raw: unknown): ResponseError<ErrorData | undefined> {
  const e = fromStoreError(raw);
  if (e instanceof ResponseError) return e as ResponseError<ErrorData | undefined>;
  if (isEngineError(e)) return new ResponseError(e.code, e.message, e.data);
  const message = e instanceof Error ? e.message : String(e);
  return new ResponseError(RpcErrorCodes.InternalError, `${method} failed: ${message}`);
}

/**
 * Wraps a request handler: engine errors keep their code and message; anything unexpected is
 * logged with its stack (it is a bug, not bad input) and answered as an internal error. A
 * request cancelled while it ran (one that awaited) is answered RequestCancelled; handlers that
 * run long (traces) get the token to stop early.
 */
export function guardRequest<P, R>(
  method: string,
  log: Logger,
  handler: (params: P, token?: CancellationToken) => R | Promise<R>,
): (params: P, token?: CancellationToken) => Promise<R> {
  return async (params: P, token?: CancellationToken) => {
    try {
      const result = await handler(params, token);
      if (token?.isCancellationRequested) throw new ResponseError(LSPErrorCodes.RequestCancelled, `${method} cancelled`);
      return result;
    } catch (e) {
      if (!isEngineError(e) && !(e instanceof ResponseError)) {
        log(`${method} failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
      }
      throw toResponseError(method, e);
    }
  };
}

/** Wraps a notification handler: notifications have no answer, so failures are logged only. */
export function guardNotification<P>(
  method: string,
  log: Logger,
  handler: (params: P) => void | Promise<void>,
): (params: P) => void {
  const report = (e: unknown) => {
    const msg = describe(e);
    log(msg.startsWith(`${method}:`) ? msg : `${method} failed: ${msg}`);
  };
  return (params: P) => {
    try {
      const result = handler(params);
      if (result instanceof Promise) result.catch(report);
    } catch (e) {
      report(e);
    }
  };
}

export function describe(e: unknown): string {
  if (isEngineError(e)) return e.message;
  return e instanceof Error ? (e.stack ?? e.message) : String(e);
}
