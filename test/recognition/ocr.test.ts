// The offline OCR (recognition/text/ocr.ts, PP-OCRv4 on onnxruntime-node): text the test draws itself,
// with known words, sizes and places, and a real shelf photo's price tag.
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { detectorInput, readText, readTexts } from '../../main/server/recognition/text/ocr.js';
import type { RawPixels } from '../../main/server/recognition/raw-pixels.js';
import { DATA } from './fixtures.js';

async function render(svg: string): Promise<RawPixels> {
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels };
}

const label = (w: number, h: number, body: string, background = '#fff') =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}"><rect width="${w}" height="${h}" fill="${background}"/>${body}</svg>`;
const text = (x: number, y: number, size: number, s: string, extra = '') =>
  `<text x="${x}" y="${y}" font-family="DejaVu Sans" font-size="${size}" ${extra}>${s}</text>`;

describe('reading text', () => {
  it('reads the lines of a drawn label top to bottom, with their boxes and heights', async () => {
    const raw = await render(label(320, 150, text(16, 36, 20, 'Whole Milk 1L') + text(16, 110, 60, '2,49', 'font-weight="bold"')));
    const lines = await readText(raw);
    // The recogniser (trained mostly on Chinese) may drop the spaces between Latin words.
    expect(lines.map((l) => l.text.replace(/\s/g, ''))).toEqual(['WholeMilk1L', '2,49']);
    const [small, big] = lines;
    // The boxes sit where the text was drawn (the price from x 16, baseline 110, cap height ~44 px).
    expect(big.box.x1).toBeGreaterThan(5);
    expect(big.box.x1).toBeLessThan(30);
    expect(big.box.y1).toBeGreaterThan(50);
    expect(big.box.y2).toBeLessThan(130);
    expect(small.box.y2).toBeLessThan(big.box.y1);
    expect(big.height).toBeGreaterThan(2 * small.height);
    for (const l of lines) expect(l.score).toBeGreaterThan(0.8);
  });

  it('gives boxes in the whole image when reading a region of it', async () => {
    const raw = await render(label(800, 400, text(500, 300, 48, '13.50', 'font-weight="bold"')));
    const [line] = await readText(raw, { x: 400, y: 200, w: 300, h: 150 });
    expect(line.text).toBe('13.50');
    expect(line.box.x1).toBeGreaterThan(480);
    expect(line.box.x1).toBeLessThan(520);
    expect(line.box.y2).toBeGreaterThan(290);
    expect(line.box.y2).toBeLessThan(325);
  });

  it('reads light text on a dark ground and a small crop enlarged for the detector', async () => {
    const dark = await render(label(240, 90, text(12, 62, 44, 'SALE 3.99', 'fill="#ff0"'), '#c00'));
    const tiny = await render(label(90, 30, text(4, 22, 18, '0.89')));
    const [a, b] = await readTexts([dark, tiny]);
    // Words far apart on one row may come as one line or two, in reading order either way.
    expect(a.map((l) => l.text).join(' ')).toBe('SALE 3.99');
    expect(b.map((l) => l.text)).toEqual(['0.89']);
  });

  it("builds the detector's input of an enlarged crop as sharp's resize would, channels in BGR order", async () => {
    // A tag-sized crop with coloured print, enlarged about 2.7 times (as a tag's crop is for the detector).
    const raw = await render(label(70, 36, text(4, 26, 20, '4.99', 'fill="#d02010" font-weight="bold"') + '<rect x="50" y="4" width="16" height="8" fill="#1040c0"/>', '#f4e040'));
    const W = 192;
    const H = 96;
    const input = await detectorInput(raw, W, H);
    const resized = await sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 3 } }).resize(W, H, { fit: 'fill', kernel: 'linear' }).raw().toBuffer();
    const mean = [0.485, 0.456, 0.406];
    const std = [0.229, 0.224, 0.225];
    let worst = 0;
    let sum = 0;
    for (let p = 0; p < W * H; p++) {
      for (let c = 0; c < 3; c++) {
        // Plane c is the BGR image's channel c: RGB channel 2 - c, back in grey levels.
        const level = (input[c * W * H + p] * std[c] + mean[c]) * 255;
        const diff = Math.abs(level - resized[p * 3 + (2 - c)]);
        worst = Math.max(worst, diff);
        sum += diff;
      }
    }
    // The same samples, to a grey level (both round to 8 bits, but for a few ties); sampling half a pixel
    // off, or RGB order, is several grey levels off on average.
    expect(sum / (3 * W * H)).toBeLessThan(0.02);
    expect(worst).toBeLessThan(1.01);
  });

  it('finds nothing on a blank image', async () => {
    expect(await readText(await render(label(200, 80, '')))).toEqual([]);
  });

  it('reads a real price tag on a shelf photo', async () => {
    const { data, info } = await sharp(path.join(DATA, 'shelf-photos', 'test_1094.jpg')).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const raw = { data, width: info.width, height: info.height, channels: info.channels };
    const lines = await readText(raw, { x: 300, y: 1150, w: 400, h: 100 });
    const price = lines.find((l) => l.text === '28.80');
    expect(price, JSON.stringify(lines.map((l) => l.text))).toBeDefined();
    expect(price!.box.x1).toBeGreaterThan(450);
    expect(price!.box.x2).toBeLessThan(590);
  });
});
