// One download from the central into a file, with the bytes hashed on the way: a file whose SHA-256
// is not the one it was asked for is not kept (photos are named by their hash, models carry theirs).
import { createHash } from 'node:crypto';
import { open, rm } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/** Writes `body` to `file`; throws (and leaves no file) when its SHA-256 is not `sha256`. */
export async function downloadVerified(body: ReadableStream<Uint8Array>, file: string, sha256: string, what: string): Promise<void> {
  const hash = createHash('sha256');
  try {
    const out = (await open(file, 'w')).createWriteStream();
    await pipeline(Readable.fromWeb(body as WebReadableStream), async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        hash.update(chunk);
        yield chunk;
      }
    }, out);
    if (hash.digest('hex') !== sha256) throw new Error(`${what}: the bytes received do not match its checksum; it will be fetched again`);
  } catch (error) {
    await rm(file, { force: true });
    throw error;
  }
}
