// The stdio transport of the language server, with the two faults the library leaves open:
// - a stream it cannot read (a bad Content-Length, a missing header) leaves the reader deaf
//   forever: here it is fatal, reported on stderr, and the server exits with an error; so is a
//   Content-Length above MAX_MESSAGE_BYTES (the library would wait for, and buffer, 10^12 bytes)
//   or a header that never ends;
// - a client that never reads its output would make the server buffer answers without bound:
//   here the server stops reading requests while too much output is waiting, and resumes when
//   the client drains it.
import { Transform, type Readable, type Writable } from 'node:stream';
import { MAX_HEADER_BYTES, MAX_MESSAGE_BYTES } from '../../../protocol';
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
  const framed = boundedFrames(onFatal);
  input.pipe(framed);
  const reader = new StreamMessageReader(framed);
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
      input.pause(); // nothing more is read from the client now
      framed.pause(); // and what the guard holds is not handed on
    }
    return write(msg).finally(() => {
      pending--;
      if (paused && pending <= PENDING_HIGH_WATER / 2) {
        paused = false;
        framed.resume();
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

/**
 * A pass-through that follows the message framing (headers, then Content-Length bytes of body)
 * only to refuse what no client sends: an announced body above MAX_MESSAGE_BYTES, a header above
 * MAX_HEADER_BYTES. It never buffers a body; headers it cannot read it leaves to the reader's
 * own error.
 */
export function boundedFrames(onFatal: (why: string) => void): Transform {
  let header = ''; // header bytes seen so far (latin1: one char per byte)
  let bodyLeft = 0;
  let failed = false;
  let following = true;
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      if (failed) return done();
      let at = 0;
      while (following && at < chunk.length) {
        if (bodyLeft > 0) {
          const take = Math.min(bodyLeft, chunk.length - at);
          bodyLeft -= take;
          at += take;
          continue;
        }
        const end = Math.min(chunk.length, at + MAX_HEADER_BYTES + 4);
        header += chunk.toString('latin1', at, end);
        const stop = header.indexOf('\r\n\r\n');
        if (stop < 0) {
          at = end;
          if (header.length > MAX_HEADER_BYTES) return fail(`a message header longer than ${MAX_HEADER_BYTES} bytes`, done);
          continue;
        }
        at = end - (header.length - (stop + 4)); // the bytes after the header's end are body
        const m = /^content-length:[ \t]*(\d+)[ \t]*$/im.exec(header.slice(0, stop));
        header = '';
        if (!m) {
          following = false; // the reader reports a header it cannot read
          break;
        }
        const length = Number(m[1]);
        if (length > MAX_MESSAGE_BYTES) return fail(`Content-Length ${m[1]} is above the limit of ${MAX_MESSAGE_BYTES} bytes`, done);
        bodyLeft = length;
      }
      done(null, chunk);
    },
  });

  function fail(why: string, done: () => void): void {
    failed = true;
    onFatal(`unreadable message stream: ${why}`);
    done(); // nothing more is passed on
  }
}
