// Tool errors: every failure an agent can meet becomes a tool result with isError and a message
// that says what to do next. Errors of the language server keep their NSCCN code.
import { ErrorCodes, type ErrorData } from '../../protocol';
import { ChildGone } from './child';

/** A failure the agent can act on; `hint` is the next step. */
export class ToolError extends Error {
  constructor(
    message: string,
    readonly hint: string,
    readonly code: number = ErrorCodes.InvalidParams,
    readonly suggestions?: string[],
  ) {
    super(message);
  }
}

export interface ToolErrorShape {
  code: number;
  message: string;
  hint: string;
  suggestions?: string[];
}

const NEXT: Record<number, string> = {
  [ErrorCodes.UnknownEntity]: 'Call the tool again with one of the closest ids, or find the entity with search_and_rank.',
  [ErrorCodes.OutsideWorkspace]: 'Only files under the workspace root can be read; use a path relative to the root.',
  [ErrorCodes.NotIndexed]: 'The file is not in the index (unsupported language, excluded, or too large); list the nsccn://skeleton resources for the indexed files.',
  [ErrorCodes.IndexUnavailable]: 'The index could not be opened; call index_status for the reason.',
  [ErrorCodes.BadPosition]: 'Name the entity by id instead (search_and_rank finds ids).',
  [ErrorCodes.InvalidParams]: 'Fix the argument as the message says and call again.',
};
/** An unknown entity with no ids close to it: the message says why (a file not indexed, a line past the end). */
const NO_CLOSE_IDS = 'Find the entity with search_and_rank, or name it by a file and line the message does not rule out.';

/** Anything a tool threw, as the shape sent back to the agent. */
export function toToolError(e: unknown): ToolErrorShape {
  if (e instanceof ToolError) return { code: e.code, message: e.message, hint: e.hint, ...(e.suggestions ? { suggestions: e.suggestions } : {}) };
  if (e instanceof ChildGone) {
    return { code: ErrorCodes.IndexUnavailable, message: e.message, hint: 'The language server is restarted automatically; call the tool again.' };
  }
  const rpc = e as { code?: unknown; message?: unknown; data?: ErrorData };
  if (typeof rpc?.code === 'number' && typeof rpc.message === 'string') {
    const suggestions = rpc.data?.suggestions;
    return {
      code: rpc.code,
      message: rpc.message,
      hint: rpc.code === ErrorCodes.UnknownEntity && !suggestions?.length ? NO_CLOSE_IDS : (NEXT[rpc.code] ?? 'Call index_status to check the server, then try again.'),
      ...(suggestions?.length ? { suggestions } : {}),
    };
  }
  const message = e instanceof Error ? e.message : String(e);
  return { code: -32603, message: `internal error: ${message}`, hint: 'This is a bug in NSCCN; call index_status, then try again.' };
}

/** The one-paragraph text a model reads for an error. */
export function renderToolError(err: ToolErrorShape): string {
  return `error: ${err.message}\nnext: ${err.hint}`;
}
