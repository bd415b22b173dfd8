// The stdio transport of the language server, with the two faults the library leaves open:
// - a stream it cannot read (a bad Content-Length, a missing header) leaves the reader deaf
//   forever: here it is fatal, reported on stderr, and the server exits with an error;
// - a client that never reads its output would make the server buffer answers without bound:
//   here the server stops reading requests while too much output is waiting, and resumes when
//   the client drains it.
import type { Readable, Writable } from 'node:stream';
import {
  LSPErrorCodes,
  StreamMessageReader,
  StreamMessageWriter,
  type ConnectionStrategy,
  type RequestMessage,
  type ResponseMessage,
} from 'vscode-languageserver/node';

/** Messages waiting for the client above which no new request is read (resumes at half). */
export const PENDING_HIGH_WATER = 256;

export interface Transport {
  reader: StreamMessageReader;
  writer: StreamMessageWriter;
}

export function stdioTransport(input: Readable, output: Writable, onFatal: (why: string) => void): Transport {
  const reader = new StreamMessageReader(input);
  const writer = new StreamMessageWriter(output);
  reader.onError((e) => onFatal(`unreadable message stream: ${e.message.split('\n')[0]}`));
  writer.onError(() => {
    /* the client went away: the input's end or close ends the server */
  });
  // The library queues each message until the previous one is flushed to the client, so the
  // backlog is the number of writes not yet done.
  let pending = 0;
  let paused = false;
  const write = writer.write.bind(writer);
  writer.write = (msg) => {
    pending++;
    if (pending > PENDING_HIGH_WATER && !paused) {
      paused = true;
      input.pause();
    }
    return write(msg).finally(() => {
      pending--;
      if (paused && pending <= PENDING_HIGH_WATER / 2) {
        paused = false;
        input.resume();
      }
    });
  };
  return { reader, writer };
}

/**
 * `$/cancelRequest` for a request still waiting in the queue (behind a long trace, or one of
 * a thousand in flight): answered RequestCancelled at once, never run.
 */
export const cancelQueued: ConnectionStrategy = {
  cancelUndispatched: (message): ResponseMessage => ({
    jsonrpc: '2.0',
    id: (message as RequestMessage).id,
    error: { code: LSPErrorCodes.RequestCancelled, message: `${(message as RequestMessage).method} cancelled` },
  }),
};
