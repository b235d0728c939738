import { close, read } from 'node:fs';
import type { Writable } from 'node:stream';
import type { ByteRange, RangeSender } from '../blob-store.js';

/** The size of one read (and of one write to the destination). */
export const SEND_CHUNK_BYTES = 256 * 1024;

/**
 * Chunks no send is using, kept for the next one: at most this many (8 MiB), enough for
 * every connection of a busy moment to find one; more at once are allocated and left to
 * the garbage collector.
 */
const KEPT_CHUNKS = 32;
const idleChunks: Buffer[] = [];

function takeChunk(): Buffer {
  return idleChunks.pop() ?? Buffer.allocUnsafeSlow(SEND_CHUNK_BYTES);
}

function giveBack(chunk: Buffer): void {
  if (idleChunks.length < KEPT_CHUNKS) idleChunks.push(chunk);
}

/**
 * Sends bytes `range` of the open file `fd` to `destination`, in chunks of
 * `SEND_CHUNK_BYTES` read into buffers reused from one send to the next, and ends it; the
 * descriptor is closed whatever happens. A stream (`fs.createReadStream`) allocates a new
 * buffer for every read, which the kernel must map and fault in and the garbage collector
 * must free: for a 1 MiB answer that cost more CPU than the copies themselves, and twice
 * the rate is served without it (test/bench/README.md).
 *
 * A chunk is read again only once the destination has handed the last one to the kernel
 * (its write callback: until then the socket still holds it), so a slow client holds one
 * chunk, as a stream's buffer would. So `destination` must be done with a chunk when its
 * write callback runs: an HTTP answer or a socket is, a stream that passes chunks on by
 * reference (a `PassThrough`) is not. A destination that closes early (the client went
 * away) ends the send; a read that fails or finds the file short destroys the destination
 * (its length was promised: the answer is cut) and rejects.
 */
export function sendFileRange(fd: number, range: ByteRange, destination: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const end = range.end + 1;
    let position = range.start;
    let reading = false;
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      destination.off('close', onClose);
      close(fd, () => {});
      if (error) reject(error);
      else resolve();
    };
    // A read under way settles once it returns (its buffer is the kernel's until then).
    const onClose = () => {
      if (!reading) settle();
    };
    destination.once('close', onClose);
    const chunk = takeChunk();
    const sendNext = () => {
      if (destination.destroyed) {
        settle();
        return;
      }
      reading = true;
      read(fd, chunk, 0, Math.min(chunk.length, end - position), position, (error, count) => {
        reading = false;
        if (destination.destroyed) {
          giveBack(chunk);
          settle();
          return;
        }
        if (error || count === 0) {
          giveBack(chunk);
          const failure = error ?? new Error(`The file ends before byte ${range.end}.`);
          destination.destroy(failure);
          settle(failure);
          return;
        }
        position += count;
        const bytes = chunk.subarray(0, count);
        if (position >= end) {
          // Given back once the last byte is the kernel's ('finish'); never, if the
          // destination fails first: then the collector takes it.
          destination.end(bytes, () => giveBack(chunk));
          settle();
          return;
        }
        destination.write(bytes, (writeError) => {
          if (writeError) settle();
          else sendNext();
        });
      });
    };
    sendNext();
  });
}

/** A `RangeSender` for bytes `range` of the open file `fd`. */
export function fileRangeSender(fd: number, range: ByteRange): RangeSender {
  return { sendTo: (destination) => sendFileRange(fd, range, destination) };
}
