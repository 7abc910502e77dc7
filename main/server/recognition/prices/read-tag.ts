// Reads price tags found on a photo: each tag's crop through the OCR (text/ocr.ts), its lines put
// together the way tags print prices (cents printed small beside or above the units), then parsed
// (price-text.ts); and the EAN its barcode prints, when it has one (ean.ts). A tag whose text does
// not parse is unreadable with the reason, never a guessed price.
import type { Box } from '../shelves.js';
import { loadOpenCv, type OpenCv } from '../opencv.js';
import type { RawPixels, Rect } from '../raw-pixels.js';
import { readLinesAt, readTexts, type OcrBox, type OcrLine } from '../text/ocr.js';
import { readEan } from './ean.js';
import { readTag, type TagLine, type TagReading } from './price-text.js';

/** A photo's pixels and the loaded OpenCV that looks at them (the ink's blobs). */
export interface TagPixels {
  image: RawPixels;
  cv: OpenCv;
}

export interface TagRead {
  /** The lines read, top to bottom, joined by newlines. */
  text: string;
  reading: TagReading;
  /** Mean confidence of the lines the price was read from (all lines when unreadable), 0..1. */
  read_score: number;
  ean: string | null;
}

export interface ReadTagsOptions {
  /** Look for an EAN barcode on tags large enough to hold a readable one (default true). */
  ean?: boolean;
}

// A tag's crop is taken a little larger than its box: detector boxes cut into the price's edge.
const MARGIN = 0.08;
// A barcode's bars need about a pixel each: an EAN-13 is 95 modules wide.
const EAN_MIN_WIDTH = 140;

/** Reads each tag's box on the photo (OCR in one batch), in the order of `boxes`. */
export async function readTags(image: RawPixels, boxes: readonly Box[], options: ReadTagsOptions = {}): Promise<TagRead[]> {
  const regions = boxes.map((b) => {
    const mx = (b.x2 - b.x1) * MARGIN;
    const my = (b.y2 - b.y1) * MARGIN;
    const x = Math.max(0, Math.floor(b.x1 - mx));
    const y = Math.max(0, Math.floor(b.y1 - my));
    return { x, y, w: Math.min(image.width, Math.ceil(b.x2 + mx)) - x, h: Math.min(image.height, Math.ceil(b.y2 + my)) - y };
  });
  const usable = regions.map((r) => r.w >= 4 && r.h >= 4);
  const read = await readTexts(
    regions.filter((_, i) => usable[i]).map((region) => ({ image, region })),
    // Tags are small: the detector sees their crop enlarged so the price is well above its smallest text.
    // Fine print under a quarter of the price's height is not recognised: it never holds the price and
    // costs most of the time (a unit price line is about a third of it).
    { minSide: 192, maxSide: 640, minLineHeight: 0.25 },
  );
  const linesOf: OcrLine[][] = [];
  let k = 0;
  for (const ok of usable) linesOf.push(ok ? read[k++] : []);
  // OpenCV labels the ink's blobs (loaded with the OCR already).
  const cv = await loadOpenCv();
  const joined = linesOf.map((lines, i) => centsSign(joinSmallCents(lines, { image, cv }), { image, cv }, boxes[i]));
  // A price read as a bare "3" or "95" with something small beside it: the cents (or a ¢) that the
  // line's box left out. Read that spot on its own; when it holds print that cannot be read, the
  // tag is unreadable rather than priced at 3.00.
  const spots = joined.map((lines, i) => smallPrintSpot(lines, image, regions[i]));
  const spotText = await readLinesAt(image, spots.filter((s): s is { line: number; box: OcrBox } => s !== null).map((s) => s.box));
  let n = 0;
  const out: TagRead[] = [];
  for (const [i, tagLines] of joined.entries()) {
    const spot = spots[i];
    let unread: string | null = null;
    if (spot) {
      const seen = spotText[n++];
      const line = tagLines[spot.line];
      const cents = /^(\d{2})(?!\d)/.exec(seen.text);
      const sign = /^[¢c]/.exec(seen.text);
      if (seen.score >= 0.6 && cents) tagLines[spot.line] = { ...line, text: `${line.text}.${cents[1]}` };
      else if (seen.score >= 0.6 && sign && /^\d{1,2}$/.test(line.text)) tagLines[spot.line] = { ...line, text: `${line.text}¢` };
      else unread = `small print beside "${line.text}" not read`;
    }
    const parsed = readTag(tagLines);
    const reading: TagReading = unread && parsed.status === 'read' ? { status: 'unreadable', reason: unread, promotion: parsed.promotion, unitPrice: parsed.unitPrice } : parsed;
    let ean: string | null = null;
    if (options.ean !== false && regions[i].w >= EAN_MIN_WIDTH) ean = await readEan(image, regions[i]);
    out.push({ text: tagLines.map((l) => l.text).join('\n'), reading, read_score: readScore(tagLines, reading), ean });
  }
  return out;
}

/**
 * "95" with a small raised ¢ beside it (US tags): PP-OCR's dictionary has no "¢", and it reads the
 * glyph as nothing or as "'". The glyph is looked for in the pixels right of the last digit, within
 * the tag's box: with the ink threshold a quarter of the way from Otsu's cut toward the digits' ink
 * (a ¢ a few px wide is joined to the digit by blur at Otsu's cut), one blob of its own, clear of
 * the digit and of the tag's edge, a fifth to two thirds of the digits' height, narrower than tall
 * (a ¢'s stroke; two small cents digits are wider than tall, or two blobs), and raised. Anything
 * else leaves the line as it was (unreadable as a bare number).
 */
export function centsSign(lines: ScoredLine[], { image, cv }: TagPixels, box: Box): ScoredLine[] {
  if (lines.length === 0) return lines;
  const tallest = lines.reduce((best, l, i) => (l.height > lines[best].height ? i : best), 0);
  const line = lines[tallest];
  const m = /^(\d{1,2})'?$/.exec(line.text);
  const source = line.source;
  if (!m || !source || source.chars.length !== source.text.trim().length) return lines;
  const last = source.chars[m[1].length - 1];
  const lh = line.box.y2 - line.box.y1;
  const x0 = Math.max(0, Math.floor(last.x));
  const y0 = Math.max(0, Math.floor(Math.max(box.y1, line.box.y1 - 0.15 * lh)));
  const atEdge = box.x2 <= last.x + 1.2 * lh;
  const w = Math.min(image.width, Math.ceil(Math.min(box.x2, last.x + 1.2 * lh))) - x0;
  const h = Math.min(image.height, Math.ceil(line.box.y2)) - y0;
  if (w < 6 || h < 8) return lines;
  // Print the OCR did read there (small cents as a line of their own) is no ¢.
  if (lines.some((l, i) => i !== tallest && l.box.x2 > x0 + 0.3 * lh && l.box.x1 < x0 + w && l.box.y2 > y0 && l.box.y1 < y0 + h)) return lines;
  const lx0 = Math.max(0, Math.floor(line.box.x1));
  const ly0 = Math.max(0, Math.floor(line.box.y1));
  const digits = greyOf(image, lx0, ly0, Math.min(image.width, Math.ceil(line.box.x2)) - lx0, Math.min(image.height, Math.ceil(line.box.y2)) - ly0);
  const { cut, inkDark, darkMean, lightMean } = inkSplit(digits);
  const inkMean = inkDark ? darkMean : lightMean;
  const strict = cut + 0.25 * (inkMean - cut);
  const grey = greyOf(image, x0, y0, w, h);
  const mask = grey.map((v) => ((inkDark ? v <= strict : v >= strict) ? 1 : 0));
  const labels = new Int32Array(w * h);
  const blobs = blobsOf(cv, mask, w, h, labels).filter((b) => b.area >= 3);
  // The digit: what touches the window's left side (it starts at the digit's centre).
  const digit = blobs.filter((b) => b.x1 === 0);
  if (digit.length === 0) return lines;
  const right = Math.max(...digit.map((b) => b.x2));
  const top = Math.min(...digit.map((b) => b.y1));
  const size = Math.max(...digit.map((b) => b.y2)) - top + 1;
  if (size < 0.4 * lh) return lines;
  // Beside the digit. What reaches the window's right side is the tag's edge where the window ends
  // there, else more print (no ¢ alone).
  if (!atEdge && blobs.some((b) => b.x1 > 0 && b.x2 >= w - 1)) return lines;
  const beside = blobs.filter((b) => b.x1 > 0 && b.x2 < w - 1);
  if (beside.length === 0 && joinedSign(labels, w, new Set(digit.map((b) => b.label)), m[1].at(-1)!, { top, size })) {
    return lines.map((l, i) => (i === tallest ? { ...l, text: `${m[1]}¢` } : l));
  }
  if (beside.length !== 1) return lines;
  const [g] = beside;
  const gw = g.x2 - g.x1 + 1;
  const gh = g.y2 - g.y1 + 1;
  // At least 6 px tall: smaller, two raised cents digits blurred into one faint blob look the same
  // (a 3⁹⁷ peg tag's 97 is 3 x 4 px).
  const small = g.y1 > 0 && gh >= Math.max(6, 0.2 * size) && gh <= 0.7 * size && gw <= 0.75 * gh && g.y2 < top + 0.6 * size;
  // A ¢ as large as the digits, which the OCR dropped: its stroke shows above and below the "c", so
  // the blob is narrow at its top and bottom rows and wide across its middle (a "/" or "|" is narrow
  // throughout, a "c" wide at its top).
  const large = gh >= 0.8 * size && gh <= 1.4 * size && gw <= 0.75 * gh && stroked(mask, w, g);
  if (g.x1 <= right || !(small || large)) return lines;
  return lines.map((l, i) => (i === tallest ? { ...l, text: `${m[1]}¢` } : l));
}

/**
 * A small raised ¢ that blur joins to the last digit's top (tags printed smaller than the clear
 * ones): the digit's ink reaches further right in its upper part than its body does below, by a
 * mark about a ¢'s size, raised (wholly in the digits' upper half). Only after digits whose top is
 * no wider than their body (a 7's bar, a 4's arm or a 1's flag stick out by themselves). `labels` are
 * the blob labels of the window right of the digit's centre (blobsOf), `digitBlobs` the digit's;
 * `top` and `size` the digit's rows in it.
 */
function joinedSign(labels: Int32Array, w: number, digitBlobs: ReadonlySet<number>, digit: string, { top, size }: { top: number; size: number }): boolean {
  if (!/[0235689]/.test(digit)) return false;
  const h = labels.length / w;
  const ink = (x: number, y: number) => digitBlobs.has(labels[y * w + x]);
  const rightIn = (y0: number, y1: number) => {
    let right = -1;
    for (let y = Math.max(0, y0); y <= Math.min(h - 1, y1); y++) for (let x = w - 1; x > right; x--) if (ink(x, y)) right = x;
    return right;
  };
  const body = rightIn(Math.round(top + 0.55 * size), top + size - 1);
  if (body < 0) return false;
  let x1 = w;
  let x2 = -1;
  let y1 = h;
  let y2 = -1;
  for (let y = 0; y < h; y++) {
    for (let x = body + 2; x < w; x++) {
      if (!ink(x, y)) continue;
      x1 = Math.min(x1, x);
      x2 = Math.max(x2, x);
      y1 = Math.min(y1, y);
      y2 = Math.max(y2, y);
    }
  }
  if (x2 < 0) return false;
  const out = x2 - body;
  const gh = y2 - y1 + 1;
  // At least 3 px out and 3 columns wide: a pixel or two past the body is blur or the glyph's own
  // shape at small sizes (a 5's bar, a ® or a small 9 there would pass otherwise). At least 5 px tall
  // (the real ones measured 6 to 10): below, a faint blob of blurred raised digits looks the same.
  return out >= Math.max(3, 0.1 * size) && x2 - x1 >= 2 && out <= 0.4 * size && gh >= Math.max(5, 0.15 * size) && y2 < top + 0.5 * size;
}

/** Whether a blob is narrow (a stroke) in its top and bottom tenth and at least 2.5 times as wide across its middle. */
function stroked(mask: Uint8Array, w: number, b: { x1: number; y1: number; x2: number; y2: number }): boolean {
  const widthAt = (y: number) => {
    let first = -1;
    let last = -1;
    for (let x = b.x1; x <= b.x2; x++) {
      if (!mask[y * w + x]) continue;
      if (first < 0) first = x;
      last = x;
    }
    return first < 0 ? 0 : last - first + 1;
  };
  const gh = b.y2 - b.y1 + 1;
  const band = Math.max(1, Math.round(gh * 0.1));
  let ends = 0;
  for (let k = 0; k < band; k++) ends = Math.max(ends, widthAt(b.y1 + k), widthAt(b.y2 - k));
  let middle = 0;
  for (let y = b.y1 + Math.round(gh * 0.35); y <= b.y1 + Math.round(gh * 0.65); y++) middle = Math.max(middle, widthAt(y));
  return ends > 0 && middle >= 2.5 * ends;
}

/**
 * Where the small cents of a price read as a bare one- or two-digit number would be: right of it,
 * level with its upper half. Null when the tag's largest line is not such a number or nothing is
 * printed there.
 */
function smallPrintSpot(lines: readonly ScoredLine[], image: RawPixels, tag: Rect): { line: number; box: OcrBox } | null {
  if (lines.length === 0) return null;
  const tallest = lines.reduce((best, l, i) => (l.height > lines[best].height ? i : best), 0);
  const line = lines[tallest];
  if (!/^[$S]?\d{1,2}$/.test(line.text)) return null;
  const h = line.box.y2 - line.box.y1;
  // From just past the last digit (its centre, where the OCR emitted it, plus half a digit): the
  // line's box may or may not take the small print in.
  const last = line.source?.chars.at(-1);
  const from = last ? last.x + 0.3 * h : line.box.x2 - 0.05 * h;
  // Within the tag: the ground beside it is no print.
  const box = { x1: from, y1: Math.max(tag.y, line.box.y1 - 0.15 * h), x2: Math.min(tag.x + tag.w, from + 1.1 * h), y2: line.box.y1 + 0.55 * h };
  return hasInk(image, box) ? { line: tallest, box } : null;
}

/** Whether a box of the image holds print: two well separated grey levels, the darker or lighter a few % of it. */
function hasInk(image: RawPixels, box: OcrBox): boolean {
  const x0 = Math.max(0, Math.floor(box.x1));
  const y0 = Math.max(0, Math.floor(box.y1));
  const x1 = Math.min(image.width, Math.ceil(box.x2));
  const y1 = Math.min(image.height, Math.ceil(box.y2));
  if (x1 - x0 < 3 || y1 - y0 < 3) return false;
  const grey = greyOf(image, x0, y0, x1 - x0, y1 - y0);
  const { dark, darkMean, lightMean } = inkSplit(grey);
  const light = grey.length - dark;
  if (dark === 0 || light === 0) return false;
  const minority = Math.min(dark, light) / grey.length;
  return minority > 0.04 && lightMean - darkMean > 40;
}

function greyOf(image: RawPixels, x0: number, y0: number, w: number, h: number): Uint8Array {
  const grey = new Uint8Array(w * h);
  const c = image.channels;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const p = ((y0 + y) * image.width + x0 + x) * c;
      grey[y * w + x] = c >= 3 ? (image.data[p] * 77 + image.data[p + 1] * 150 + image.data[p + 2] * 29) >> 8 : image.data[p];
    }
  }
  return grey;
}

interface ScoredLine extends TagLine {
  score: number;
  box: OcrLine['box'];
  /** The OCR's line this one is (absent for two lines joined). */
  source?: OcrLine;
}

function readScore(lines: readonly ScoredLine[], reading: TagReading): number {
  if (lines.length === 0) return 0;
  const tallest = Math.max(...lines.map((l) => l.height));
  const used = reading.status === 'read' ? lines.filter((l) => l.height >= tallest * 0.85) : lines;
  return Math.round((used.reduce((s, l) => s + l.score, 0) / used.length) * 1000) / 1000;
}

/**
 * Tags print the cents small: "2⁵⁰", "1 99" with the 99 raised, "95¢". The OCR gives them as a
 * separate short line beside the units (then joined with a decimal point here), or inside one line
 * as plain digits ("250"), where the glyphs' shape tells: raised cents end well above the units'
 * baseline.
 */
export function joinSmallCents(lines: readonly OcrLine[], pixels?: TagPixels): ScoredLine[] {
  // A leading "S" before digits is the OCR's reading of a "$". A line of one or two digits and a "t"
  // is a price in cents: the OCR's dictionary has no "¢" and reads one printed as large as the
  // digits as "t" (a "c" is parsed as cents already).
  const out: ScoredLine[] = lines.map((l) => ({
    text: l.text
      .trim()
      .replace(/^S(?=\s?\d)/, '$')
      .replace(/^(\d{1,2})t$/, '$1¢'),
    height: l.height,
    score: l.score,
    box: l.box,
    source: l,
  }));
  const used = new Set<number>();
  for (let a = 0; a < out.length; a++) {
    const units = out[a];
    if (used.has(a) || !/\d$/.test(units.text) || /\d[.,]\d*$/.test(units.text)) continue;
    for (let b = 0; b < out.length; b++) {
      const cents = out[b];
      if (b === a || used.has(b) || !/^\d{2}(?:[¢c]|\s|$)/.test(cents.text)) continue;
      const gap = cents.box.x1 - units.box.x2;
      const smaller = cents.height < units.height * 0.8;
      const beside = gap > -0.3 * units.height && gap < 0.8 * units.height;
      const raised = (cents.box.y1 + cents.box.y2) / 2 < (units.box.y1 + units.box.y2) / 2 && cents.box.y1 > units.box.y1 - 0.3 * units.height;
      if (!smaller || !beside || !raised) continue;
      out[a] = {
        text: `${units.text}.${cents.text.slice(0, 2)}${cents.text.slice(2).replace(/^[¢c]/, '')}`,
        height: units.height,
        score: Math.min(units.score, cents.score),
        box: { x1: units.box.x1, y1: Math.min(units.box.y1, cents.box.y1), x2: cents.box.x2, y2: units.box.y2 },
      };
      used.add(b);
      break;
    }
  }
  const joined = out.filter((_, i) => !used.has(i));
  if (!pixels) return joined;
  return joined.map((line) => {
    const split = raisedCents(line, line.source, pixels.image) ?? spacedCents(line, line.source) ?? printedPoint(line, line.source, pixels);
    return split ? { ...line, text: split } : line;
  });
}

/**
 * A line read as digits without a decimal mark ("$250", "1999"): when its last two digits end well
 * above the baseline of the others, they are raised cents and the text gets its decimal point.
 */
function raisedCents(line: ScoredLine, source: OcrLine | undefined, image: RawPixels): string | null {
  if (!source || source.chars.length !== source.text.length) return null;
  const m = /^(\D*?)(\d{1,4})(\d{2})(\D*)$/.exec(source.text.trim());
  if (!m || line.text.replace(/^\$/, 'S') !== source.text.trim().replace(/^\$/, 'S')) return null;
  const start = source.text.indexOf(m[2]);
  const digits = [...m[2], ...m[3]].map((_, k) => source.chars[start + k]);
  if (digits.some((d) => !d)) return null;
  const box = source.box;
  const x0 = Math.max(0, Math.floor(box.x1));
  const y0 = Math.max(0, Math.floor(box.y1));
  const x1 = Math.min(image.width, Math.ceil(box.x2));
  const y1 = Math.min(image.height, Math.ceil(box.y2));
  const w = x1 - x0;
  const h = y1 - y0;
  if (w < 8 || h < 8) return null;
  const grey = greyOf(image, x0, y0, w, h);
  const { cut, inkDark } = inkSplit(grey);
  const ink = (v: number) => (inkDark ? v <= cut : v > cut);
  const spacing = digits.length > 1 ? Math.abs(digits[digits.length - 1].x - digits[0].x) / (digits.length - 1) : w;
  const half = Math.max(1, spacing * 0.3);
  const bottoms = digits.map((d) => {
    const from = Math.max(0, Math.floor(d.x - x0 - half));
    const to = Math.min(w - 1, Math.ceil(d.x - x0 + half));
    for (let y = h - 1; y >= 0; y--) {
      let count = 0;
      for (let x = from; x <= to; x++) if (ink(grey[y * w + x])) count++;
      if (count >= Math.max(1, (to - from + 1) * 0.15)) return y;
    }
    return -1;
  });
  if (bottoms.some((b) => b < 0)) return null;
  const units = bottoms.slice(0, -2);
  const cents = bottoms.slice(-2);
  // The units' lowest ink is their baseline (a digit's own window may miss part of its stroke).
  const baseline = Math.max(...units);
  if (Math.max(...cents) >= baseline - 0.15 * h) return null;
  return `${m[1]}${m[2]}.${m[3]}${m[4]}`;
}

/**
 * A line read as 3 to 5 digits with no point ("242"), as the OCR gave it: the match (prefix, units,
 * cents, suffix) and the x of each digit, for the checks that look for a point the OCR missed.
 */
function digitsWithoutPoint(line: ScoredLine, source: OcrLine | undefined): { m: RegExpExecArray; xs: number[] } | null {
  if (!source || source.chars.length !== source.text.length) return null;
  const m = /^(\D*?)(\d{1,3})(\d{2})(\D*)$/.exec(source.text.trim());
  if (!m || line.text.replace(/^\$/, 'S') !== source.text.trim().replace(/^\$/, 'S')) return null;
  const start = source.text.indexOf(m[2]);
  const xs = [...m[2], ...m[3]].map((_, k) => source.chars[start + k]?.x);
  if (xs.some((x) => x === undefined)) return null;
  return { m, xs: xs as number[] };
}

/**
 * "242" read from "2.42" whose point is too small for the OCR: the digits before the cents stand
 * apart by the point's width. Only when that gap is clearly the widest between the digits.
 */
function spacedCents(line: ScoredLine, source: OcrLine | undefined): string | null {
  const found = digitsWithoutPoint(line, source);
  if (!found) return null;
  const { m, xs } = found;
  const gaps = xs.slice(1).map((x, k) => x - xs[k]);
  const point = gaps[m[2].length - 1];
  const others = gaps.filter((_, k) => k !== m[2].length - 1);
  if (others.length === 0 || point < 1.4 * Math.max(...others)) return null;
  return `${m[1]}${m[2]}.${m[3]}${m[4]}`;
}

/**
 * "242" read from "2.42" where the recogniser's steps are too coarse to show the point's gap (they
 * fall every 8 of its 48-px-high input columns): the point itself is looked for in the pixels, as a
 * blob of ink of its own, small, on the digits' baseline, between the units' last digit and the
 * cents' first; and no other gap between the digits holds one.
 */
function printedPoint(line: ScoredLine, source: OcrLine | undefined, { image, cv }: TagPixels): string | null {
  const found = digitsWithoutPoint(line, source);
  if (!found || !source) return null;
  const { m, xs } = found;
  const x0 = Math.max(0, Math.floor(source.box.x1));
  const y0 = Math.max(0, Math.floor(source.box.y1));
  const w = Math.min(image.width, Math.ceil(source.box.x2)) - x0;
  const h = Math.min(image.height, Math.ceil(source.box.y2)) - y0;
  if (w < 8 || h < 8) return null;
  const grey = greyOf(image, x0, y0, w, h);
  const { cut, inkDark } = inkSplit(grey);
  const ink = (x: number, y: number) => (inkDark ? grey[y * w + x] <= cut : grey[y * w + x] > cut);
  const mask = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) mask[y * w + x] = ink(x, y) ? 1 : 0;
  const blobs = blobsOf(cv, mask, w, h);
  // The digits' baseline: the lowest row of the blobs as tall as a third of the line (the digits).
  const digits = blobs.filter((b) => b.y2 - b.y1 + 1 >= h / 3);
  if (digits.length === 0) return null;
  const baseline = Math.max(...digits.map((b) => b.y2));
  const top = Math.min(...digits.map((b) => b.y1));
  const size = baseline - top + 1;
  // A point: its own blob (so no part of a digit, such as a 4's crossbar), small, resting on the
  // baseline, wholly between two digits' centres.
  const dotIn = (from: number, to: number): boolean =>
    blobs.some(
      (b) =>
        b.x1 > from &&
        b.x2 < to &&
        b.area >= 2 &&
        b.x2 - b.x1 + 1 <= 0.25 * size &&
        b.y2 - b.y1 + 1 <= 0.25 * size &&
        b.y1 > top + size / 2 &&
        Math.abs(b.y2 - baseline) <= 0.15 * size,
    );
  const local = xs.map((x) => x - x0);
  const point = m[2].length - 1;
  if (!dotIn(local[point], local[point + 1])) return null;
  for (let k = 0; k + 1 < local.length; k++) if (k !== point && dotIn(local[k], local[k + 1])) return null;
  return `${m[1]}${m[2]}.${m[3]}${m[4]}`;
}

/**
 * The 8-connected blobs of a 0/1 mask (w x h), by OpenCV's connectedComponentsWithStats: their bounds,
 * pixel counts and labels (1 on); with `labels`, each pixel's blob label is written there (0: no ink).
 */
function blobsOf(cv: OpenCv, mask: Uint8Array, w: number, h: number, labels?: Int32Array): Array<{ x1: number; y1: number; x2: number; y2: number; area: number; label: number }> {
  const src = cv.matFromArray(h, w, cv.CV_8UC1, mask as unknown as number[]);
  const labelled = new cv.Mat();
  const stats = new cv.Mat();
  const centroids = new cv.Mat();
  try {
    const n = cv.connectedComponentsWithStats(src, labelled, stats, centroids, 8, cv.CV_32S);
    if (labels) labels.set(labelled.data32S);
    const s = stats.data32S;
    const cols = stats.cols;
    const out: Array<{ x1: number; y1: number; x2: number; y2: number; area: number; label: number }> = [];
    for (let k = 1; k < n; k++) {
      const [x, y, bw, bh, area] = [cv.CC_STAT_LEFT, cv.CC_STAT_TOP, cv.CC_STAT_WIDTH, cv.CC_STAT_HEIGHT, cv.CC_STAT_AREA].map((c) => s[k * cols + c]);
      out.push({ x1: x, y1: y, x2: x + bw - 1, y2: y + bh - 1, area, label: k });
    }
    return out;
  } finally {
    src.delete();
    labelled.delete();
    stats.delete();
    centroids.delete();
  }
}

/**
 * Otsu's split of a grey image into print and tag: the cut (dark is at or below it), whether the ink is
 * the dark class (ink is the smaller class: dark print on a light tag, or light print on a dark one),
 * the dark class's size and each class's mean.
 */
function inkSplit(grey: Uint8Array): { cut: number; inkDark: boolean; dark: number; darkMean: number; lightMean: number } {
  const cut = otsu(grey);
  let dark = 0;
  let darkSum = 0;
  let lightSum = 0;
  for (const v of grey) {
    if (v <= cut) {
      dark++;
      darkSum += v;
    } else lightSum += v;
  }
  return {
    cut,
    inkDark: dark <= grey.length / 2,
    dark,
    darkMean: darkSum / Math.max(1, dark),
    lightMean: lightSum / Math.max(1, grey.length - dark),
  };
}

/** Otsu's threshold of a grey image. */
function otsu(grey: Uint8Array): number {
  const hist = new Array<number>(256).fill(0);
  for (const v of grey) hist[v]++;
  let sum = 0;
  for (let i = 0; i < 256; i++) sum += i * hist[i];
  let sumB = 0;
  let wB = 0;
  let best = 0;
  let cut = 127;
  for (let t = 0; t < 256; t++) {
    wB += hist[t];
    if (wB === 0) continue;
    const wF = grey.length - wB;
    if (wF === 0) break;
    sumB += t * hist[t];
    const mB = sumB / wB;
    const mF = (sum - sumB) / wF;
    const between = wB * wF * (mB - mF) * (mB - mF);
    if (between > best) {
      best = between;
      cut = t;
    }
  }
  return cut;
}
