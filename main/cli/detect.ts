// `npm run detect -- --json IMAGE...`: runs the shelf detector on each image and prints one JSON line per
// image: {"image", "width", "height", "ms", "boxes": [{"x1","y1","x2","y2","score"}]}, boxes in the image's
// pixels as displayed (EXIF orientation applied). An unreadable image is reported on stderr and the others
// still run; the exit status is 1 if any image failed.
// Options: --model PATH, --threads N, --input-size N, --score-threshold X, --iou-threshold X (non-maximum
// suppression; 1 keeps every peak), --zoom X (1: one pass), --mirror (also average with the mirrored image).
import { parseArgs } from 'node:util';

import { createDetector, DetectorInputError } from '../server/recognition/detector/index.js';

const USAGE = 'usage: detect [--json] [--model PATH] [--threads N] [--input-size N] [--score-threshold X] [--iou-threshold X] [--zoom X] [--mirror] IMAGE...';

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        json: { type: 'boolean', default: false },
        model: { type: 'string' },
        threads: { type: 'string' },
        'input-size': { type: 'string' },
        'score-threshold': { type: 'string' },
        'iou-threshold': { type: 'string' },
        zoom: { type: 'string' },
        mirror: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (err) {
    process.stderr.write(`detect: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  const num = (v: string | undefined) => (v === undefined ? undefined : Number(v));
  const detector = await createDetector({
    // --model, else SHELF_DETECTOR_MODEL (as the server reads it), else the shipped model.
    modelPath: values.model ?? (process.env.SHELF_DETECTOR_MODEL || undefined),
    threads: num(values.threads),
    inputSize: num(values['input-size']),
    scoreThreshold: num(values['score-threshold']),
    iouThreshold: num(values['iou-threshold']),
    zoom: num(values.zoom),
    mirror: values.mirror,
  });
  let failed = 0;
  try {
    for (const image of positionals) {
      try {
        const r = await detector.detect(image);
        const boxes = r.boxes.map((b) => ({
          x1: round(b.x1, 1),
          y1: round(b.y1, 1),
          x2: round(b.x2, 1),
          y2: round(b.y2, 1),
          score: round(b.score, 4),
        }));
        const line = { image, width: r.width, height: r.height, ms: round(r.ms, 1), boxes };
        process.stdout.write(values.json ? `${JSON.stringify(line)}\n` : `${image}: ${boxes.length} products (${r.width}x${r.height}, ${line.ms} ms)\n`);
      } catch (err) {
        failed++;
        // Input errors already name the file.
        const msg = err instanceof DetectorInputError ? err.message : `${image}: ${(err as Error).message}`;
        process.stderr.write(`detect: ${msg}\n`);
      }
    }
  } finally {
    await detector.close();
  }
  return failed ? 1 : 0;
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`detect: ${(err as Error).message}\n`);
    process.exitCode = 1;
  },
);
