// Look-alikes told apart by the words printed on them. Sibling packs of one brand (Special K Classic,
// Cioccolato Fondente, Red Fruit) share their logo, layout and most of their print, so appearance and
// local features rank them within a hair of each other; what differs is a word or two, often the one
// that names the SKU ("Fondente"). For the crops where the chosen SKU has such a sibling close behind,
// the pack's text is read (ocr.ts, batched) and compared with the SKU names: when the chosen SKU's name
// is not in what was read and exactly one sibling's name is, the sibling is taken.
//
// Reading costs ~50-100 ms a crop on one core, so only those crops are read, the closest calls first
// and at most MAX_CROPS of them per photo.
import type { CropIdentity } from '../identification/identify-crops.js';
import type { RawPixels } from '../raw-pixels.js';
import { readTexts } from './ocr.js';

/** An SKU's name (its siblings share a word of it) and its name with its attributes' values (what the pack may print). */
export interface SkuText {
  name: string;
  text: string;
}

// Chosen on the identify-shelves bench's choice half (docs/recognition.md): the chosen SKU's name has
// under a fifth of the read text's letter triples, the sibling's two thirds or more.
const DISAGREE_BELOW = 0.2;
const AGREE_FROM = 0.67;
// Fewer letter triples than this is a stray letter or two ("K"): no evidence.
const MIN_TRIGRAMS = 3;
/** Crops read per photo at most (time: issue 38's 1.2x per photo). */
export const MAX_CROPS = 4;

/** Lower-case ASCII words (accents dropped), digits and % kept. */
export function words(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9%]+/)
    .filter((w) => w.length > 0);
}

/** The letter triples of the words of 3 letters or more: robust to OCR's merged words and misread letters. */
export function trigrams(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of words(text)) for (let i = 0; i + 3 <= w.length; i++) out.add(w.slice(i, i + 3));
  return out;
}

/** Share of the read text's triples found in the name, 0..1; null when too little was read. */
export function textAgreement(read: Set<string>, name: string): number | null {
  if (read.size < MIN_TRIGRAMS) return null;
  const own = trigrams(name);
  let hits = 0;
  for (const g of read) if (own.has(g)) hits++;
  return hits / read.size;
}

/** Two SKUs are siblings when their names share a word of 4 letters or more (a brand or a line). */
export function siblings(a: string, b: string): boolean {
  const wa = new Set(words(a).filter((w) => w.length >= 4));
  return words(b).some((w) => w.length >= 4 && wa.has(w));
}

/** A crop's identity after its text is read: a sibling taken where the text names it and not the choice. */
export function decideByText(identity: CropIdentity, read: Set<string>, names: ReadonlyMap<string, SkuText>): CropIdentity {
  const chosen = identity.skuId;
  if (chosen === null || !identity.lookAlikes) return identity;
  const own = textAgreement(read, names.get(chosen)?.text ?? '');
  if (own === null || own >= DISAGREE_BELOW) return identity;
  const agreeing = identity.lookAlikes.filter((l) => (textAgreement(read, names.get(l.skuId)?.text ?? '') ?? 0) >= AGREE_FROM);
  if (agreeing.length !== 1) return identity;
  const skuId = agreeing[0].skuId;
  const taken = identity.suggestions.find((s) => s.skuId === skuId);
  return {
    skuId,
    score: identity.score,
    suggestions: [...(taken ? [taken] : []), ...identity.suggestions.filter((s) => s.skuId !== skuId)],
  };
}

/**
 * Reads the text of the crops whose chosen SKU has a sibling close behind (by the SKU names), the
 * closest calls first, MAX_CROPS at most, and decides them again by it. Repeated facings share one
 * identity object (identify-crops.ts): each is read once and the answer goes to all of them.
 */
export async function checkLookAlikesByText(
  crops: readonly RawPixels[],
  identities: readonly CropIdentity[],
  names: ReadonlyMap<string, SkuText>,
  maxCrops = MAX_CROPS,
): Promise<CropIdentity[]> {
  const first = new Map<CropIdentity, number>();
  identities.forEach((id, i) => {
    if (!first.has(id)) first.set(id, i);
  });
  const closest = (id: CropIdentity) => Math.min(...id.lookAlikes!.map((l) => l.gap));
  const candidates = [...first.entries()]
    .map(([id, i]) => ({ id, i, lookAlikes: (id.lookAlikes ?? []).filter((l) => id.skuId !== null && siblings(names.get(id.skuId)?.name ?? '', names.get(l.skuId)?.name ?? '')) }))
    // Only where a sibling looks more alike than the SKU taken (taken on local features or colour
    // against the appearance): the calls most in doubt, and few enough to read (time).
    .filter((c) => c.id.skuId !== null && c.lookAlikes.some((l) => l.gap < 0))
    .map((c) => ({ ...c, id: { ...c.id, lookAlikes: c.lookAlikes } }))
    .sort((a, b) => closest(a.id) - closest(b.id))
    .slice(0, maxCrops);
  if (candidates.length === 0) return [...identities];
  let lines: Awaited<ReturnType<typeof readTexts>>;
  try {
    lines = await readTexts(candidates.map((c) => crops[c.i]));
  } catch (error) {
    // Without the OCR models (a broken install) the appearance's answers stand; recognition goes on.
    warnOnce(error);
    return [...identities];
  }
  const decided = new Map<CropIdentity, CropIdentity>();
  candidates.forEach((c, k) => {
    const text = lines[k].map((l) => l.text).join(' ');
    const again = decideByText(c.id, trigrams(text), names);
    const original = identities[c.i];
    decided.set(original, again === c.id ? original : { ...again, readText: text });
  });
  return identities.map((id) => decided.get(id) ?? id);
}

let warned = false;
function warnOnce(error: unknown): void {
  if (warned) return;
  warned = true;
  console.warn(`pack text not read (look-alikes decided by appearance alone): ${error instanceof Error ? error.message : String(error)}`);
}
