// Memory under large multipart uploads: the built `serve` in its own process,
// 6 concurrent POST /api/v1.5/uploads/ requests of 20 files x 24 MB each (valid, distinct JPEGs; the
// route stores the first, every part is received), then the server's peak RSS (VmHWM, Linux). Goal:
// under 1 GB. The client streams the bodies from one shared JPEG, so it holds ~24 MB itself.
//
//   node bench/upload-memory.bench.mjs [--requests 6] [--files 20] [--mb 24]
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { spawnServe } from './serve-process.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const REQUESTS = arg('requests', 6);
const FILES = arg('files', 20);
const FILE_BYTES = arg('mb', 24) * 1000 * 1000;
const KEY = 'bench-upload-memory-key-0123456789abcdef';

/** A noisy JPEG, padded with comment segments to exactly FILE_BYTES; a tag segment makes each distinct. */
async function baseJpeg() {
  const width = 3000;
  const height = 2000;
  const noise = Buffer.alloc(width * height * 3);
  for (let i = 0; i < noise.length; i += 4) noise.writeUInt32LE((Math.random() * 2 ** 32) >>> 0, i);
  const jpeg = await sharp(noise.subarray(0, width * height * 3), { raw: { width, height, channels: 3 } }).jpeg({ quality: 95 }).toBuffer();
  const tagSegment = 4 + 16; // FF FE, length, 16 bytes of tag
  let room = FILE_BYTES - jpeg.length - tagSegment;
  if (room < 0) throw new Error(`the base JPEG is ${jpeg.length} bytes, over ${FILE_BYTES}`);
  const segments = [];
  while (room > 0) {
    // A COM segment carries at most 65533 bytes; the last one takes what is left (4 bytes at least).
    let data = Math.min(65533, room - 4);
    if (room - (data + 4) > 0 && room - (data + 4) < 4) data -= 4;
    if (data < 0) throw new Error('padding arithmetic');
    const seg = Buffer.alloc(4 + data, 0x20);
    seg[0] = 0xff;
    seg[1] = 0xfe;
    seg.writeUInt16BE(data + 2, 2);
    segments.push(seg);
    room -= seg.length;
  }
  // SOI | (tag goes here) | padding | the rest of the JPEG
  return { head: jpeg.subarray(0, 2), rest: Buffer.concat([...segments, jpeg.subarray(2)]) };
}

function tag(n) {
  const seg = Buffer.alloc(20, 0x20);
  seg[0] = 0xff;
  seg[1] = 0xfe;
  seg.writeUInt16BE(18, 2);
  seg.write(`file-${n}`.padEnd(16, '.'), 4, 'latin1');
  return seg;
}

function send(url, base, requestIndex) {
  const boundary = `----bench${requestIndex}`;
  const parts = [];
  for (let f = 0; f < FILES; f++) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="datafile"; filename="shelf-${f}.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`));
    parts.push(base.head, tag(requestIndex * 1000 + f), base.rest, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  const length = parts.reduce((n, p) => n + p.length, 0);
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request({ host: u.hostname, port: u.port, method: 'POST', path: '/api/v1.5/uploads/', headers: { authorization: `Token ${KEY}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': String(length) } }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode, body: body.slice(0, 200), seconds: (Date.now() - started) / 1000 }));
    });
    req.on('error', reject);
    let i = 0;
    const pump = () => {
      while (i < parts.length) if (!req.write(parts[i++])) return void req.once('drain', pump);
      req.end();
    };
    pump();
  });
}

function peakRss(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { peakMb: kb('VmHWM') / 1024, nowMb: kb('VmRSS') / 1024 };
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-upload-bench-'));
const { server, url } = await spawnServe(dataDir, KEY);
try {
  const base = await baseJpeg();
  const idle = peakRss(server.pid);
  console.log(`server idle: ${idle.nowMb.toFixed(0)} MB RSS; sending ${REQUESTS} concurrent requests of ${FILES} files x ${(FILE_BYTES / 1e6).toFixed(0)} MB`);
  const started = Date.now();
  const results = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => send(url, base, i)));
  const seconds = (Date.now() - started) / 1000;
  const { peakMb } = peakRss(server.pid);
  for (const [i, r] of results.entries()) console.log(`request ${i}: ${r.status} in ${r.seconds.toFixed(1)} s${r.status >= 300 ? ` ${r.body}` : ''}`);
  const mb = (REQUESTS * FILES * FILE_BYTES) / 1e6;
  console.log(`${mb.toFixed(0)} MB uploaded in ${seconds.toFixed(1)} s (${(mb / seconds).toFixed(0)} MB/s)`);
  console.log(`server peak RSS (VmHWM): ${peakMb.toFixed(0)} MB (goal: under 1024 MB) -> ${peakMb < 1024 ? 'OK' : 'OVER'}`);
  if (results.some((r) => r.status !== 201)) process.exitCode = 1;
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
}
