// The language server: a stdio JSON-RPC connection wired to the handler modules. Each request
// is validated, routed to the engine of its workspace folder and answered; every failure is a
// JSON-RPC error with a clear message (errors.ts), never an exit.
import { inspect } from 'node:util';
import {
  createConnection,
  ProposedFeatures,
  type CancellationToken,
  type Connection,
  type MessageReader,
} from 'vscode-languageserver/node';
import { cancelQueued, stdioTransport } from './transport';
import { IdleCollector } from './idle-gc';
import { Methods } from '../../../protocol';
import { incomingCalls, outgoingCalls, prepareCallHierarchy } from './callHierarchy';
import { codeLenses, resolveCodeLens } from './codeLens';
import * as custom from './custom';
import { definition } from './definition';
import { describe, guardNotification, guardRequest, invalidParams } from './errors';
import { hover } from './hover';
import * as P from './params';
import { references } from './references';
import { Session } from './session';
import { documentSymbols, workspaceSymbols } from './symbols';
import { implementation, prepareTypeHierarchy, typeHierarchyStep } from './typeHierarchy';

/** Starts the server on stdin/stdout (`nsccn lsp [--stdio]`). */
export function runLanguageServer(): void {
  let session: Session | null = null;
  let exiting = false;
  // Closes every index before leaving (a stream fault, a signal, the input's end).
  const leave = (code: number, why?: string) => {
    if (exiting) return;
    exiting = true;
    if (why) process.stderr.write(`nsccn lsp: ${why}\n`);
    const force = setTimeout(() => process.exit(code), 5000);
    force.unref();
    void (session?.shutdown() ?? Promise.resolve()).finally(() => process.exit(code));
  };
  const { reader, writer } = stdioTransport(process.stdin, process.stdout, (why) => leave(1, `${why}; exiting`));
  const collector = new IdleCollector();
  const connection = createConnection(ProposedFeatures.all, observed(reader, () => collector.activity()), writer, cancelQueued);
  redirectConsole(connection);
  // Last line of defence: a bug in a timer or a forgotten promise is logged, not fatal.
  process.on('unhandledRejection', (e) => connection.console.error(`unhandled rejection: ${describe(e)}`));
  process.on('uncaughtException', (e) => connection.console.error(`uncaught exception: ${describe(e)}`));
  // An editor closing stops its server with SIGTERM; a terminal with SIGINT.
  process.on('SIGTERM', () => leave(session?.isShutDown ? 0 : 143));
  process.on('SIGINT', () => leave(session?.isShutDown ? 0 : 130));
  // The client is gone: after shutdown that is a normal end, otherwise an error.
  process.stdin.on('end', () => leave(session?.isShutDown ? 0 : 1));
  process.stdin.on('close', () => leave(session?.isShutDown ? 0 : 1));
  session = startServer(connection);
  connection.listen();
}

/** `reader`, telling `seen` of every message it delivers. */
function observed(reader: MessageReader, seen: () => void): MessageReader {
  return {
    onError: reader.onError,
    onClose: reader.onClose,
    onPartialMessage: reader.onPartialMessage,
    listen: (callback) =>
      reader.listen((message) => {
        seen();
        callback(message);
      }),
    dispose: () => reader.dispose(),
  };
}

/** One stray console.log on stdout would corrupt the protocol stream: console goes to the client's log. */
function redirectConsole(connection: Connection): void {
  const text = (args: unknown[]) => args.map((a) => (typeof a === 'string' ? a : inspect(a))).join(' ');
  console.log = console.info = console.debug = (...args: unknown[]) => connection.console.log(text(args));
  console.warn = (...args: unknown[]) => connection.console.warn(text(args));
  console.error = (...args: unknown[]) => connection.console.error(text(args));
}

/** Wires every handler of the server to `connection` (tests may pass their own connection). */
export function startServer(connection: Connection): Session {
  const session = new Session(connection);
  const { workspaces, documents, log } = session;
  // Every request first applies the edits still batched, so answers reflect every keystroke.
  // The lifecycle is the spec's: before initialize, ServerNotInitialized; after shutdown,
  // InvalidRequest (notifications then are dropped, except exit).
  const request = <P, R>(method: string, fn: (params: P, token?: CancellationToken) => R | Promise<R>) =>
    guardRequest(method, log, (params: P, token?: CancellationToken) => {
      session.checkRequest(method);
      const run = () => {
        documents.flush();
        return fn(params, token);
      };
      // ... and every buffer opened before it, once the grammars are loaded (a server's first moments).
      const afterOpens = () => {
        const waiting = documents.waiting();
        return waiting ? waiting.then(run) : run();
      };
      // A request sent before initialize was answered waits for it (see Session.initializing).
      const opening = method === 'initialize' ? null : session.initializing;
      return opening ? opening.then(afterOpens) : afterOpens();
    });
  const notification = <P>(method: string, fn: (params: P) => void | Promise<void>) =>
    guardNotification(method, log, (params: P) => (session.acceptsNotifications ? fn(params) : undefined));

  connection.onInitialize(request('initialize', (p) => session.initialize(p)));
  connection.onInitialized(notification('initialized', () => session.initialized()));
  connection.onShutdown(request('shutdown', () => session.shutdown()));
  connection.onExit(() => void session.shutdown()); // exit without shutdown: close what we can

  connection.onDidOpenTextDocument(notification('textDocument/didOpen', (p) => documents.open(p)));
  connection.onDidChangeTextDocument(notification('textDocument/didChange', (p) => documents.change(p)));
  connection.onDidCloseTextDocument(notification('textDocument/didClose', (p) => documents.close(p)));
  connection.onDidChangeWatchedFiles(
    notification('workspace/didChangeWatchedFiles', (p) => session.watchedFiles?.onClientChanges(p)),
  );

  connection.onDocumentSymbol(
    request('textDocument/documentSymbol', (p) => documentSymbols(workspaces, P.textDocumentUri('textDocument/documentSymbol', p))),
  );
  connection.onWorkspaceSymbol(
    request('workspace/symbol', (p, token) => {
      const o = P.object('workspace/symbol', p);
      if (typeof o.query !== 'string') throw invalidParams('workspace/symbol', "'query' must be a string");
      return workspaceSymbols(workspaces, o.query, token);
    }),
  );
  connection.languages.callHierarchy.onPrepare(
    request('textDocument/prepareCallHierarchy', (p) => {
      const { uri, position } = P.textDocumentPosition('textDocument/prepareCallHierarchy', p);
      return prepareCallHierarchy(workspaces, uri, position);
    }),
  );
  connection.languages.callHierarchy.onIncomingCalls(
    request('callHierarchy/incomingCalls', (p) =>
      incomingCalls(workspaces, 'callHierarchy/incomingCalls', P.object('callHierarchy/incomingCalls', p).item),
    ),
  );
  connection.languages.callHierarchy.onOutgoingCalls(
    request('callHierarchy/outgoingCalls', (p) =>
      outgoingCalls(workspaces, 'callHierarchy/outgoingCalls', P.object('callHierarchy/outgoingCalls', p).item),
    ),
  );
  connection.languages.typeHierarchy.onPrepare(
    request('textDocument/prepareTypeHierarchy', (p) => {
      const { uri, position } = P.textDocumentPosition('textDocument/prepareTypeHierarchy', p);
      return prepareTypeHierarchy(workspaces, uri, position);
    }),
  );
  connection.languages.typeHierarchy.onSupertypes(
    request('typeHierarchy/supertypes', (p) => typeHierarchyStep(workspaces, 'typeHierarchy/supertypes', p, 'supertypes')),
  );
  connection.languages.typeHierarchy.onSubtypes(
    request('typeHierarchy/subtypes', (p) => typeHierarchyStep(workspaces, 'typeHierarchy/subtypes', p, 'subtypes')),
  );
  connection.onImplementation(
    request('textDocument/implementation', (p) => {
      const { uri, position } = P.textDocumentPosition('textDocument/implementation', p);
      return implementation(workspaces, uri, position);
    }),
  );
  connection.onCodeLens(request('textDocument/codeLens', (p) => codeLenses(workspaces, P.textDocumentUri('textDocument/codeLens', p))));
  connection.onCodeLensResolve(request('codeLens/resolve', (p) => resolveCodeLens(workspaces, 'codeLens/resolve', p)));
  connection.onHover(
    request('textDocument/hover', (p) => {
      const { uri, position } = P.textDocumentPosition('textDocument/hover', p);
      return hover(workspaces, uri, position);
    }),
  );
  connection.onDefinition(
    request('textDocument/definition', (p) => {
      const { uri, position } = P.textDocumentPosition('textDocument/definition', p);
      return definition(workspaces, uri, position);
    }),
  );
  connection.onReferences(
    request('textDocument/references', (p) => {
      const { uri, position } = P.textDocumentPosition('textDocument/references', p);
      const ctx = (p as { context?: { includeDeclaration?: unknown } }).context;
      return references(workspaces, uri, position, ctx?.includeDeclaration === true);
    }),
  );

  connection.onRequest(Methods.search, request(Methods.search, (p: unknown, token) => custom.search(workspaces, Methods.search, p, token)));
  connection.onRequest(Methods.skeleton, request(Methods.skeleton, (p: unknown) => custom.skeleton(workspaces, Methods.skeleton, p)));
  connection.onRequest(Methods.trace, request(Methods.trace, (p: unknown, token) => custom.trace(workspaces, Methods.trace, p, token)));
  connection.onRequest(Methods.window, request(Methods.window, (p: unknown) => custom.window(workspaces, Methods.window, p)));
  connection.onRequest(Methods.changes, request(Methods.changes, (p: unknown) => custom.changes(workspaces, Methods.changes, p)));
  connection.onRequest(Methods.status, request(Methods.status, () => custom.status(workspaces, session.indexing())));
  connection.onRequest(Methods.files, request(Methods.files, () => custom.files(workspaces)));
  return session;
}
