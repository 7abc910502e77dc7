// The laptop's side of photo transfer (docs/sync.md, "Photos"). Records name their photo by the
// blob key `ab/<sha256>.<ext>`; the files follow separately: the laptop asks the central which keys it
// lacks and sends only those, each over tus (tus-js-client) so a cut connection or a restarted laptop
// resumes from the last byte the central stored: the upload's URL is kept in `sync_photos` until the
// central confirms the file. A supervisor's laptop also fetches the photos of the visits it pulled.
import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { Upload } from 'tus-js-client';
import { uploadsDir } from '../domain/uploads.js';
import { PHOTO_UPLOAD_PATH, PROTOCOL_HEADER, SYNC_PROTOCOL_VERSION } from '../schemas/sync.js';
import { FileBlobStore, isBlobKey } from '../storage/blob-store.js';
import { now } from '../storage/ids.js';
import type { Database } from '../storage/schema.js';
import { onCommit } from '../storage/transaction.js';
import { downloadVerified } from './download.js';
import type { PhotoTransfer } from './engine.js';

/** Keys asked about per request (the central's limit, schemas/sync.ts). */
const ASK_BATCH = 500;
/**
 * Photos going up at once: each photo's round trips, the central's hash check and fsync overlap the
 * others' bytes (bench/sync-push.bench.mjs: 40 visits x 5 photos, 7.1 s with 3, 5.3 s with 6).
 */
const PARALLEL_UPLOADS = 6;
/** How long a count of pending photos is reused (the status is polled; the count scans all uploads). */
const PENDING_TTL_MS = 1_000;

/** Bytes read from a photo file at once: a sixteenth of the reads and socket writes of 64 KiB pieces. */
const READ_BYTES = 1024 * 1024;

/**
 * tus-js-client's file source (its `fileReader` option) for a photo on disk, read in large pieces: the
 * library's own source reads in fs's default 64 KiB, each piece a read, a progress event and a socket
 * write (laptop CPU per photo 9 -> 6.5 ms in bench/sync-push.bench.mjs, 40 visits x 5 photos).
 */
const photoFiles = {
  async openFile(file: unknown) {
    const input = file as { path: string; size: number };
    return {
      size: input.size,
      async slice(start: number, end: number) {
        const stop = Math.min(end, input.size);
        const value = Object.assign(createReadStream(input.path, { start, end: stop - 1, highWaterMark: READ_BYTES }), { size: stop - start });
        return { value, done: stop >= input.size };
      },
      close() {},
    };
  },
};

interface Pending {
  file: string;
  bytes: number;
  upload_url: string | null;
}

export class TusPhotoTransfer implements PhotoTransfer {
  private readonly blobs: FileBlobStore;
  private counted: { at: number; value: Promise<{ count: number; bytes: number }> } | null = null;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly db: Kysely<Database>,
    dataDir: string,
    private readonly options: { retryDelays?: number[] } = {},
  ) {
    this.blobs = new FileBlobStore(uploadsDir(dataDir));
    // A new photo (taken here or pulled) shows in the count at once.
    this.unsubscribe = onCommit(db, (entities) => {
      if (entities.has('upload')) this.counted = null;
    });
  }

  close(): void {
    this.unsubscribe();
  }

  /** Photo files named by upload rows that the central has not confirmed (or, pulled, this laptop lacks). */
  private async todo(limit?: number): Promise<Pending[]> {
    let q = this.db
      .selectFrom('uploads')
      .leftJoin('sync_photos', 'sync_photos.file', 'uploads.file')
      .select((eb) => ['uploads.file as file', eb.fn.max('uploads.bytes').as('bytes'), eb.fn.max('sync_photos.upload_url').as('upload_url')])
      .where((eb) => eb.or([eb('sync_photos.state', 'is', null), eb('sync_photos.state', '=', 'uploading')]))
      .groupBy('uploads.file')
      .orderBy('uploads.file');
    if (limit) q = q.limit(limit);
    const rows = await q.execute();
    return rows.map((r) => ({ file: r.file, bytes: Number(r.bytes), upload_url: (r.upload_url as string | null) ?? null }));
  }

  pending(): Promise<{ count: number; bytes: number }> {
    // Counted at most once a second while photos go up: each count reads every upload row.
    if (!this.counted || Date.now() - this.counted.at > PENDING_TTL_MS) {
      const value = this.todo().then((rows) => ({ count: rows.length, bytes: rows.reduce((s, r) => s + r.bytes, 0) }));
      this.counted = { at: Date.now(), value };
      value.catch(() => (this.counted = null));
    }
    return this.counted.value;
  }

  private async mark(file: string, state: 'uploading' | 'sent' | 'received', uploadUrl: string | null = null): Promise<void> {
    await this.db
      .insertInto('sync_photos')
      .values({ file, state, upload_url: uploadUrl, updated_at: now() })
      .onConflict((oc) => oc.column('file').doUpdateSet({ state, upload_url: uploadUrl, updated_at: now() }))
      .execute();
  }

  async upload(central: string, deviceKey: string, onProgress: (fraction: number) => void): Promise<void> {
    this.counted = null;
    try {
      await this.uploadAll(central, deviceKey, onProgress);
    } finally {
      // The round's outcome shows at once, not a second later.
      this.counted = null;
    }
  }

  private async uploadAll(central: string, deviceKey: string, onProgress: (fraction: number) => void): Promise<void> {
    const headers = { authorization: `Token ${deviceKey}`, [PROTOCOL_HEADER]: String(SYNC_PROTOCOL_VERSION) };
    // Bounded per round; the next round takes the rest.
    const todo = (await this.todo(5_000)).filter((t) => isBlobKey(t.file));
    const here: Pending[] = [];
    const elsewhere: Pending[] = [];
    for (const t of todo) ((await this.blobs.size(t.file)) === null ? elsewhere : here).push(t);

    const lacking = await this.lacking(central, headers, here.map((t) => t.file));
    for (const t of here) if (!lacking.has(t.file)) await this.mark(t.file, 'sent');

    const sending = here.filter((t) => lacking.has(t.file));
    const total = sending.reduce((s, t) => s + t.bytes, 0) + elsewhere.reduce((s, t) => s + t.bytes, 0);
    let done = 0;
    const report = (bytes: number) => onProgress(total > 0 ? Math.min(1, (done + bytes) / total) : 1);
    // A few at once: one photo's round trips and the central's checks overlap the next one's bytes.
    const inFlight = new Map<string, number>();
    const reportAll = () => report([...inFlight.values()].reduce((s, b) => s + b, 0));
    let next = 0;
    const uploaded: string[] = [];
    try {
      await Promise.all(
        Array.from({ length: Math.min(PARALLEL_UPLOADS, sending.length) }, async () => {
          while (next < sending.length) {
            const t = sending[next++];
            await this.send(central, headers, t, (sent) => {
              inFlight.set(t.file, sent);
              reportAll();
            });
            uploaded.push(t.file);
            inFlight.delete(t.file);
            done += t.bytes;
            reportAll();
          }
        }),
      );
    } finally {
      await this.confirm(central, headers, uploaded).catch(() => undefined);
    }
    for (const t of elsewhere) {
      await this.fetch(central, headers, t);
      done += t.bytes;
      report(0);
    }
  }

  /** Which of these keys the central lacks. */
  private async lacking(central: string, headers: Record<string, string>, keys: string[]): Promise<Set<string>> {
    const lacking = new Set<string>();
    for (let i = 0; i < keys.length; i += ASK_BATCH) {
      const res = await fetch(`${central}/api/app/v1/sync/photos/missing/`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ files: keys.slice(i, i + ASK_BATCH) }),
        signal: AbortSignal.timeout(60_000),
      });
      if (!res.ok) throw new Error(`photos: the central answered ${res.status} to "which photos do you lack"`);
      for (const f of ((await res.json()) as { missing: string[] }).missing) lacking.add(f);
    }
    return lacking;
  }

  /**
   * A photo counts as sent once the central says it holds it, not when its last byte was
   * acknowledged: a central that stored the bytes but failed to file them (its bucket went away in
   * between) reports a finished upload on the next HEAD, and the laptop would otherwise never send
   * the photo again. One still lacking loses its upload URL and goes up anew next round; one not
   * confirmed (the question failed) keeps its URL and is confirmed after the next round's HEAD.
   */
  private async confirm(central: string, headers: Record<string, string>, keys: string[]): Promise<void> {
    if (keys.length === 0) return;
    const lacking = await this.lacking(central, headers, keys);
    for (const key of keys) await (lacking.has(key) ? this.mark(key, 'uploading', null) : this.mark(key, 'sent'));
  }

  /** One photo up over tus, resuming a stored upload URL when there is one. */
  private async send(central: string, headers: Record<string, string>, t: Pending, report: (bytes: number) => void): Promise<void> {
    const [sha256, ext] = path.basename(t.file).split('.');
    const source = this.blobs.pathOf(t.file);
    await new Promise<void>((resolve, reject) => {
      // The file goes to `fileReader` as is; the library's type names only its own kinds of source.
      const file = { path: source, size: t.bytes } as unknown as Blob;
      const upload: Upload = new Upload(file, {
        fileReader: photoFiles,
        endpoint: central + PHOTO_UPLOAD_PATH,
        uploadUrl: t.upload_url ? new URL(t.upload_url, central).href : undefined,
        uploadSize: t.bytes,
        metadata: { sha256, ext },
        headers,
        retryDelays: this.options.retryDelays ?? [0, 500, 2_000, 5_000],
        storeFingerprintForResuming: false,
        onUploadUrlAvailable: () => {
          // Kept before the bytes go: a laptop killed mid-photo resumes this upload on restart.
          this.mark(t.file, 'uploading', upload.url).catch(() => undefined);
        },
        onProgress: (sent) => report(sent),
        onSuccess: () => resolve(),
        onError: (error) => reject(new Error(`photo ${t.file}: ${error.message.split('\n')[0]}`)),
      });
      upload.start();
    });
  }

  /** A photo this laptop pulled a record of (a supervisor's copy of an auditor's visit). */
  private async fetch(central: string, headers: Record<string, string>, t: Pending): Promise<void> {
    const res = await fetch(`${central}/api/app/v1/sync/photos/content/${path.basename(t.file)}`, { headers, signal: AbortSignal.timeout(120_000) });
    // Not on the central yet either (its owner has not sent it): a later round fetches it.
    if (res.status === 404) return void (await res.body?.cancel());
    if (!res.ok || !res.body) throw new Error(`photo ${t.file}: the central answered ${res.status}`);
    const target = this.blobs.pathOf(t.file);
    await mkdir(path.dirname(target), { recursive: true });
    const tmp = `${target}.${process.pid}.download`;
    try {
      await downloadVerified(res.body, tmp, path.basename(t.file).split('.')[0], `photo ${t.file}`);
      await this.blobs.putFile(t.file, tmp);
    } finally {
      await rm(tmp, { force: true });
    }
    await this.mark(t.file, 'received');
  }
}
