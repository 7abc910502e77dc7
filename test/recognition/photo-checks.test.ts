// The photo checks on made images: a drawn shelf (boards, packs with printed stripes), then blurred,
// darkened, brightened, given a glare patch, rotated, stored as grey, 16-bit, CMYK, EXIF-rotated.
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_THRESHOLDS as T,
  edgeRoom,
  estimateOverlap,
  hashDistance,
  judgeBoxes,
  judgeDuplicate,
  judgePixels,
  measurePhoto,
  openMask,
  productSizeOf,
  sideRoom,
  summarise,
  type Box,
} from '../../main/server/domain/photo-checks.js';

const W = 2000;
const H = 1500;

/** An SVG shelf: 4 boards, packs of varied colours with stripes, labels and edges to be sharp on. */
export function shelfSvg(width = W, height = H, seed = 1): string {
  let s = seed;
  const rnd = () => ((s = (s * 16807) % 2147483647) / 2147483647);
  const parts: string[] = [`<rect width="${width}" height="${height}" fill="#6b6b70"/>`];
  const rows = 4;
  const rowH = height / rows;
  for (let r = 0; r < rows; r++) {
    const y0 = r * rowH;
    let x = 10;
    while (x < width - 60) {
      const w = 50 + rnd() * 90;
      const h = rowH * (0.55 + rnd() * 0.3);
      const hue = Math.floor(rnd() * 360);
      parts.push(`<rect x="${x}" y="${y0 + rowH - 30 - h}" width="${w - 6}" height="${h}" fill="hsl(${hue},70%,45%)"/>`);
      for (let k = 0; k < 4; k++) {
        parts.push(`<rect x="${x + 6}" y="${y0 + rowH - 30 - h + 15 + k * 22}" width="${w - 18}" height="6" fill="hsl(${(hue + 180) % 360},60%,${k % 2 ? 85 : 20}%)"/>`);
      }
      for (let k = 0; k < 5; k++) {
        parts.push(`<rect x="${x + 8 + k * ((w - 20) / 5)}" y="${y0 + rowH - 30 - h * 0.45}" width="3" height="${h * 0.3}" fill="hsl(${(hue + 90) % 360},50%,${k % 2 ? 90 : 15}%)"/>`);
      }
      x += w;
    }
    parts.push(`<rect x="0" y="${y0 + rowH - 30}" width="${width}" height="30" fill="#d9d9d0"/>`);
    parts.push(`<rect x="0" y="${y0 + rowH - 30}" width="${width}" height="4" fill="#202020"/>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join('')}</svg>`;
}

let shelf: Buffer;

beforeAll(async () => {
  shelf = await sharp(Buffer.from(shelfSvg())).jpeg({ quality: 90 }).toBuffer();
});

const codes = async (input: Buffer) => judgePixels(await measurePhoto(input), T).map((i) => i.code);

describe('pixel checks on made images', () => {
  it('passes a sharp, level, well-exposed shelf', async () => {
    const m = await measurePhoto(shelf);
    expect(m.width).toBe(W);
    expect(m.sharpness).toBeGreaterThan(T.min_sharpness);
    expect(Math.abs(m.tilt)).toBeLessThanOrEqual(1);
    expect(m.convergence).toBeLessThanOrEqual(1);
    expect(await codes(shelf)).toEqual([]);
  });

  it('flags focus blur and motion blur', async () => {
    const focus = await sharp(shelf).blur(6).jpeg().toBuffer();
    const motion = await sharp(shelf).convolve({ width: 25, height: 3, kernel: [...new Array(25).fill(0), ...new Array(25).fill(1), ...new Array(25).fill(0)] }).jpeg().toBuffer();
    const sharpness = (await measurePhoto(shelf)).sharpness;
    expect((await measurePhoto(focus)).sharpness).toBeLessThan(sharpness / 5);
    expect(await codes(focus)).toContain('blur');
    expect(await codes(motion)).toContain('blur');
  });

  it('flags a dark and a bright photo, and clipped highlights', async () => {
    const dark = await sharp(shelf).linear(0.25, 0).jpeg().toBuffer();
    const bright = await sharp(shelf).linear(1.6, 90).jpeg().toBuffer();
    expect(await codes(dark)).toContain('too_dark');
    expect(await codes(bright)).toContain('too_bright');
    const issues = judgePixels(await measurePhoto(dark), T);
    const dim = issues.find((i) => i.code === 'too_dark')!;
    expect(dim.value).toBeLessThan(dim.threshold!);
    expect(dim.message).toMatch(/too dark/);
  });

  it('flags a glare patch', async () => {
    const patch = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
      <ellipse cx="900" cy="600" rx="260" ry="170" fill="#fdfdfd"/></svg>`);
    const glare = await sharp(shelf).composite([{ input: patch }]).jpeg().toBuffer();
    const m = await measurePhoto(glare);
    expect(m.glare).toBeGreaterThan(T.max_glare);
    expect(await codes(glare)).toContain('glare');
  });

  it('takes no white shelf lips or printed price labels for glare, and still a solid patch', async () => {
    // A close view's white fixtures (as in the exam's shelf scenes): a shelf lip 16 px tall across the
    // photo with price labels on it, white paper between dark lines of print. Together they cover more
    // than max_glare of the photo, but no part is thicker than about 10 px at the 1024 px working size.
    const labels = Array.from({ length: 8 }, (_, k) => {
      const x = 60 + k * 240;
      const print = Array.from({ length: 7 }, (_, j) => `<rect x="${x + 8}" y="${703 + j * 9}" width="144" height="4" fill="#202020"/>`).join('');
      return `<rect x="${x}" y="700" width="160" height="66" fill="#ffffff"/>${print}`;
    }).join('');
    const fixtures = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
      <rect x="0" y="684" width="${W}" height="16" fill="#ffffff"/>${labels}</svg>`);
    const white = await sharp(shelf).composite([{ input: fixtures }]).jpeg({ quality: 90 }).toBuffer();
    expect(await codes(white)).not.toContain('glare');
    // The same fixtures with a reflection of about 1.5 % of the photo on the packs: still glare.
    const patch = Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
      <ellipse cx="1300" cy="330" rx="150" ry="100" fill="#fdfdfd"/></svg>`);
    const both = await sharp(white).composite([{ input: patch }]).jpeg({ quality: 90 }).toBuffer();
    const m = await measurePhoto(both);
    expect(m.glare).toBeGreaterThan(T.max_glare);
    expect(m.glare).toBeLessThan(0.03); // the patch alone, not the fixtures joined to it
    expect(await codes(both)).toContain('glare');
  });

  it('opens a mask: lines thinner than the square go, a solid square keeps its exact pixels', () => {
    const w = 40;
    const h = 30;
    const mask = new Uint8Array(w * h);
    for (let x = 0; x < w; x++) for (let y = 3; y < 7; y++) mask[y * w + x] = 1; // a line 4 px thick
    for (let x = 20; x < 29; x++) for (let y = 15; y < 24; y++) mask[y * w + x] = 1; // a 9 px square
    for (let y = 0; y < 9; y++) mask[y * w] = 1; // a 1 px line down the left side
    const opened = openMask(mask, w, h, 2); // a 5 px square
    const set = [...opened.keys()].filter((i) => opened[i]);
    expect(set.length).toBe(81);
    expect(set.every((i) => i % w >= 20 && i % w < 29 && Math.floor(i / w) >= 15 && Math.floor(i / w) < 24)).toBe(true);
    // A solid patch at the photo's side is kept whole: windows are cut at the sides.
    const side = new Uint8Array(w * h);
    for (let x = 0; x < 6; x++) for (let y = 10; y < 20; y++) side[y * w + x] = 1;
    expect(openMask(side, w, h, 2).reduce((a, b) => a + b, 0)).toBe(60);
  });

  it('measures the angle of a rotated photo, clockwise positive', async () => {
    for (const angle of [6, -10]) {
      const turned = await sharp(shelf).rotate(angle, { background: '#6b6b70' }).jpeg().toBuffer();
      const m = await measurePhoto(turned);
      expect(Math.abs(m.tilt - angle)).toBeLessThanOrEqual(1.5);
      expect(await codes(turned)).toContain('tilt');
    }
  });

  it('answers in words for a tiny photo, and measures grey, 16-bit, CMYK and EXIF-rotated ones', async () => {
    const tiny = await sharp(shelf).resize(120).png().toBuffer();
    const tinyIssues = judgePixels(await measurePhoto(tiny), T);
    expect(tinyIssues[0].code).toBe('too_small');
    expect(tinyIssues[0].message).toMatch(/pixels/);

    const grey = await sharp(shelf).greyscale().png().toBuffer();
    const sixteen = await sharp(shelf).toColourspace('rgb16').png().toBuffer();
    expect((await sharp(sixteen).metadata()).depth).toBe('ushort');
    const cmyk = await sharp(shelf).toColourspace('cmyk').jpeg().toBuffer();
    expect((await sharp(cmyk).metadata()).space).toBe('cmyk');
    const base = await measurePhoto(shelf);
    for (const variant of [grey, sixteen, cmyk]) {
      const m = await measurePhoto(variant);
      expect(Math.abs(m.brightness - base.brightness)).toBeLessThan(20);
      expect(m.sharpness).toBeGreaterThan(T.min_sharpness);
      expect(judgePixels(m, T).map((i) => i.code)).toEqual([]);
    }
    // Stored on its side with EXIF orientation 6: measured as displayed, so level and the right way up.
    const sideways = await sharp(shelf).rotate(-90).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const m = await measurePhoto(sideways);
    expect([m.width, m.height]).toEqual([W, H]);
    expect(Math.abs(m.tilt)).toBeLessThanOrEqual(1);
  });

  it('measures a flat grey photo without crashing, and calls it blurred', async () => {
    const flat = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#808080' } }).jpeg().toBuffer();
    expect(await codes(flat)).toContain('blur');
  });

  it('measures a panorama-sized photo', async () => {
    const wide = await sharp(Buffer.from(shelfSvg(8000, 1200, 3))).jpeg().toBuffer();
    const m = await measurePhoto(wide);
    expect(m.width).toBe(8000);
    expect(Number.isFinite(m.sharpness)).toBe(true);
  });
});

describe('the same photo twice, and overlap', () => {
  it('finds a re-encoded copy and tells a different shelf apart', async () => {
    const a = await measurePhoto(shelf);
    const again = await measurePhoto(await sharp(shelf).resize(1500).jpeg({ quality: 60 }).toBuffer());
    const other = await measurePhoto(await sharp(Buffer.from(shelfSvg(W, H, 99))).jpeg().toBuffer());
    expect(hashDistance(a.hash, again.hash)).toBeLessThanOrEqual(T.max_duplicate_distance);
    expect(judgeDuplicate(again.hash, [{ id: 'u1', hash: a.hash }], T)?.message).toMatch(/u1/);
    expect(judgeDuplicate(other.hash, [{ id: 'u1', hash: a.hash }], T)).toBeNull();
  });

  it('estimates the overlap of two photos along one bay', async () => {
    const bay = await sharp(Buffer.from(shelfSvg(4000, 1500, 7))).jpeg().toBuffer();
    const part = async (left: number) => measurePhoto(await sharp(bay).extract({ left, top: 0, width: 2000, height: 1500 }).jpeg().toBuffer());
    const first = await part(0);
    expect(estimateOverlap(first.profile, (await part(1000)).profile)).toBeCloseTo(0.5, 1);
    expect(estimateOverlap(first.profile, (await part(1800)).profile)).toBeLessThan(0.2);
  });
});

describe('checks from the detector\'s boxes', () => {
  const size = { width: 1000, height: 1000 };
  const grid = (rows: number, cols: number, top = 100, bottom = 900, left = 100, right = 900): Box[] => {
    const out: Box[] = [];
    const h = (bottom - top) / rows;
    const w = (right - left) / cols;
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out.push({ x: left + c * w, y: top + r * h + h * 0.2, w: w * 0.9, h: h * 0.8 });
    return out;
  };

  it('passes products filling the photo inside the bay', () => {
    expect(judgeBoxes(grid(8, 16), size, T)).toEqual([]);
  });
  it('says when there are no products, when they are too small, cut at top and bottom, or at the bay end', () => {
    expect(judgeBoxes([], size, T)[0].code).toBe('no_products');
    expect(judgeBoxes(grid(6, 20, 400, 600, 400, 600), size, T).map((i) => i.code)).toContain('too_far');
    expect(judgeBoxes(grid(2, 6, -200, 1200), size, T).map((i) => i.code)).toContain('too_close');
    const cut = judgeBoxes(grid(8, 16, 100, 900, 0, 800), size, T);
    expect(cut.map((i) => i.code)).toContain('bay_end_cut');
    // The middle photo of a scene has no bay end.
    expect(judgeBoxes(grid(8, 16, 100, 900, 0, 1000), size, T, { left: false, right: false })).toEqual([]);
  });
  it('says too far by the products\' size, so packs lying flat are not taken as far away', () => {
    const middle = { left: false, right: false };
    // Toothpaste-like packs: 25 px tall (under the old 0.031 height rule), 60 px wide: 39 px by area.
    const flat: Box[] = [];
    for (let r = 0; r < 16; r++) for (let c = 0; c < 14; c++) flat.push({ x: 40 + c * 66, y: 120 + r * 45, w: 60, h: 25 });
    expect(productSizeOf(flat, size)).toBeCloseTo(Math.sqrt(60 * 25) / 1000, 6);
    expect(judgeBoxes(flat, size, T, middle).map((i) => i.code)).not.toContain('too_far');
    // Products small both ways (a photo from across the aisle): too far, valued by their size.
    const small: Box[] = [];
    for (let r = 0; r < 20; r++) for (let c = 0; c < 30; c++) small.push({ x: 100 + c * 26, y: 150 + r * 35, w: 20, h: 22 });
    const far = judgeBoxes(small, size, T, middle).find((i) => i.code === 'too_far');
    expect(far).toMatchObject({ threshold: T.min_product_size });
    expect(far?.value).toBeCloseTo(Math.sqrt(20 * 22) / 1000, 4);
  });
  it('says too close when products of an ordinary size run into both the top and the bottom edge', () => {
    // Ten rows from edge to edge: products 0.08 of the photo tall (under the height rule), few cut.
    const close = judgeBoxes(grid(10, 16, 0, 1000), size, T, { left: false, right: false });
    expect(close.map((i) => i.code)).toEqual(['too_close']);
    expect(close[0]).toMatchObject({ threshold: T.min_edge_room });
    expect(close[0].value).toBeCloseTo(0.25, 2);
    // The same products with the bay's top in view (room above them), or the floor below: fine.
    expect(judgeBoxes(grid(10, 16, 150, 1000), size, T, { left: false, right: false })).toEqual([]);
    expect(judgeBoxes(grid(10, 16, 0, 850), size, T, { left: false, right: false })).toEqual([]);
    // One stray box at the very top (a sign) does not hide the room above the shelves.
    const stray = [{ x: 400, y: 0, w: 100, h: 60 }, ...grid(10, 16, 150, 1000)];
    expect(judgeBoxes(stray, size, T, { left: false, right: false })).toEqual([]);
    expect(edgeRoom([], 1000, 80)).toBe(Infinity);
  });
  it('says too close when a dense shelf\'s cut top row has only a few boxes, and passes stray boxes out of line or boxed twice', () => {
    const middle = { left: false, right: false };
    // A dense shelf (14 rows of 16 packs, 50 px tall) running into the bottom edge, its top row cut by the
    // photo's top edge: the detector boxed 5 of those cut packs, 2 % of the 229 boxes. They are a row all
    // the same: the room above the products is none.
    const dense = grid(14, 16, 120, 1000);
    const cutRow: Box[] = [0, 1, 2, 3, 4].map((c) => ({ x: 40 + c * 60, y: 0, w: 50, h: 30 }));
    const close = judgeBoxes([...cutRow, ...dense], size, T, middle);
    expect(close.map((i) => i.code)).toEqual(['too_close']);
    expect(close[0].value).toBe(0);
    // A ceiling light and a sign above the bay, at different heights: no row, so the room above runs
    // to the bay's top row (133 px: 2.6 product heights).
    const strays: Box[] = [{ x: 300, y: 0, w: 60, h: 20 }, { x: 700, y: 50, w: 120, h: 40 }];
    const pack = 0.8 * (880 / 14);
    expect(edgeRoom([...strays, ...dense], 1000, pack)).toBeCloseTo((120 + 0.2 * (880 / 14)) / pack, 6);
    expect(judgeBoxes([...strays, ...dense], size, T, middle)).toEqual([]);
    // A sign boxed twice by the detector (two boxes over one thing, at nearly the same height) is no row.
    const twice: Box[] = [{ x: 300, y: 0, w: 160, h: 60 }, { x: 320, y: 8, w: 150, h: 55 }];
    expect(edgeRoom([...twice, ...dense], 1000, pack)).toBeCloseTo((120 + 0.2 * (880 / 14)) / pack, 6);
    expect(judgeBoxes([...twice, ...dense], size, T, middle)).toEqual([]);
  });
  it('says the bay end is cut when products run into a bay-end side, whatever the share of shelves', () => {
    // The left end in view (room beside the products), the right side running into the photo's edge.
    const oneEnd = grid(8, 16, 100, 900, 150, 1000);
    const cut = judgeBoxes(oneEnd, size, T);
    expect(cut.map((i) => i.code)).toEqual(['bay_end_cut']);
    expect(cut[0]).toMatchObject({ threshold: T.min_side_room });
    expect(cut[0].value).toBeLessThan(0.2);
    // The first photo of a scene: only its left side is a bay end, and it is in view.
    expect(judgeBoxes(oneEnd, size, T, { left: true, right: false })).toEqual([]);
    // A few boxes of the neighbouring bay at the side do not hide the end.
    const neighbour = [{ x: 0, y: 300, w: 40, h: 80 }, { x: 960, y: 500, w: 40, h: 80 }, ...grid(8, 16)];
    expect(judgeBoxes(neighbour, size, T)).toEqual([]);
    const room = sideRoom(grid(8, 16), 1000, 45);
    expect(room.left).toBeCloseTo(100 / 45, 6);
    expect(room.right).toBeCloseTo(105 / 45, 6);
  });
  it('marks a photo retake, check or fine', () => {
    expect(summarise([]).mark).toBe('fine');
    expect(summarise(judgeBoxes(grid(8, 16, 100, 900, 0, 800), size, T)).mark).toBe('check');
    expect(summarise(judgeBoxes([], size, T))).toMatchObject({ ok: false, mark: 'retake' });
  });
});
