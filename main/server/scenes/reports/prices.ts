// PRICE_TAGS and PRICE_COMPLIANCE (issue 45), built from the stored analysis' price tags (with a
// reviewer's corrections laid over them: scenes/price-review.ts) and the price list. In a scene joined
// into a bay, a tag prices the merged facing its linked box is a view of, so its SKU is the bay's and
// a product seen in two photos is one SKU line.
import type { PriceTagFound, SceneAnalysis } from '../../recognition/analysis.js';
import { sceneFacings } from '../../recognition/bay/facings.js';
import { mapBox } from '../../recognition/bay/homography.js';
import type { Promotion, TagReading } from '../../recognition/prices/price-text.js';
import { moneyText } from '../../domain/money.js';
import type { ExpectedPrice } from '../../domain/prices.js';
import { bayBody } from './bay.js';
import type { PriceComplianceBody, PriceComplianceItem, PriceStatus, PriceTagItem, PriceTagsImage, TagPromotion } from './bodies.js';

function promotionBody(p: Promotion | null): TagPromotion | null {
  if (!p) return null;
  return p.kind === 'bundle' ? { kind: 'bundle', quantity: p.quantity, total: moneyText(p.total.hundredths), currency: p.total.currency } : { ...p };
}

function readingBody(r: TagReading): Pick<PriceTagItem, 'status' | 'price' | 'currency' | 'reason' | 'promotion' | 'unit_price'> {
  return {
    status: r.status,
    price: r.status === 'read' ? moneyText(r.price.hundredths) : null,
    currency: r.status === 'read' ? r.price.currency : null,
    reason: r.status === 'unreadable' ? r.reason : null,
    promotion: promotionBody(r.promotion),
    unit_price: r.unitPrice ? { price: moneyText(r.unitPrice.price.hundredths), currency: r.unitPrice.price.currency, per: r.unitPrice.per } : null,
  };
}

const round = (v: number) => Math.round(v * 10) / 10;

/** Each tag's SKU in bay terms: the merged facing's where its linked box is a view of one, else its own. */
function tagSkus(analysis: SceneAnalysis): Map<PriceTagFound, string | null> {
  const byView = new Map<string, string | null>();
  for (const f of sceneFacings(analysis)) for (const v of f.views) byView.set(`${v.image}\n${v.index}`, f.sku_id);
  const out = new Map<PriceTagFound, string | null>();
  for (const img of analysis.images) {
    for (const tag of img.price_tags ?? []) {
      const key = `${img.image}\n${tag.product_index}`;
      out.set(tag, tag.product_index !== null && byView.has(key) ? byView.get(key)! : tag.sku_id);
    }
  }
  return out;
}

export function buildPriceTags(analysis: SceneAnalysis, names: ReadonlyMap<string, string>): PriceTagsImage[] {
  const skus = tagSkus(analysis);
  const transforms = new Map((analysis.bay?.photos ?? []).flatMap((p) => (p.joined && p.transform ? [[p.image, p.transform] as const] : [])));
  const inBay = (image: string, t: PriceTagFound) => {
    const h = transforms.get(image);
    const b = h ? mapBox(h, t) : null;
    return b ? { bay_x1: round(b.x1), bay_y1: round(b.y1), bay_x2: round(b.x2), bay_y2: round(b.y2) } : {};
  };
  return analysis.images.map((img) => ({
    image: img.image,
    width: img.width,
    height: img.height,
    tags: (img.price_tags ?? []).map((t, index) => {
      const sku = skus.get(t) ?? null;
      return {
        index,
        x1: t.x1,
        y1: t.y1,
        x2: t.x2,
        y2: t.y2,
        score: t.score,
        text: t.text,
        ...readingBody(t.reading),
        read_score: t.read_score,
        ean: t.ean,
        sku_id: sku,
        name: sku === null ? null : (names.get(sku) ?? null),
        product_index: t.product_index,
        shelf_index: t.shelf_index,
        reviewed: t.reviewed === true,
        ...inBay(img.image, t),
      };
    }),
  }));
}

/** Every SKU a PRICE_COMPLIANCE covers: those on the shelf and those a tag names. */
export function priceSkus(analysis: SceneAnalysis): string[] {
  const out = new Set<string>();
  for (const f of sceneFacings(analysis)) if (f.sku_id !== null) out.add(f.sku_id);
  for (const sku of tagSkus(analysis).values()) if (sku !== null) out.add(sku);
  return [...out];
}

export interface PriceInput {
  shop: string | null;
  day: string;
  /** pricesOn's answer for priceSkus (domain/prices.ts). */
  expected: ReadonlyMap<string, readonly ExpectedPrice[]>;
  names: ReadonlyMap<string, string>;
}

export function buildPriceCompliance(analysis: SceneAnalysis, input: PriceInput): PriceComplianceBody {
  const skus = tagSkus(analysis);
  const facings = new Map<string, number>();
  for (const f of sceneFacings(analysis)) if (f.sku_id !== null) facings.set(f.sku_id, (facings.get(f.sku_id) ?? 0) + 1);
  const tagsOf = new Map<string, { image: string; index: number; tag: PriceTagFound }[]>();
  const unlinked: PriceComplianceBody['unlinked_tags'] = [];
  for (const img of analysis.images) {
    (img.price_tags ?? []).forEach((tag, index) => {
      const sku = skus.get(tag) ?? null;
      if (sku === null) {
        const r = readingBody(tag.reading);
        unlinked.push({ image: img.image, index, product_index: tag.product_index, price: r.price, currency: r.currency, status: r.status, text: tag.text });
      } else {
        const list = tagsOf.get(sku) ?? [];
        list.push({ image: img.image, index, tag });
        tagsOf.set(sku, list);
      }
    });
  }
  const items: PriceComplianceItem[] = priceSkus(analysis).map((sku) => {
    const tags = tagsOf.get(sku) ?? [];
    const read = tags.flatMap((t) => (t.tag.reading.status === 'read' ? [t.tag.reading.price] : []));
    const found: PriceComplianceItem['found_prices'] = [];
    for (const p of read) {
      const text = moneyText(p.hundredths);
      if (!found.some((f) => f.price === text && f.currency === p.currency)) found.push({ price: text, currency: p.currency });
    }
    // The expected price in the currency a tag prints, else the list's first (one per currency).
    const options = input.expected.get(sku) ?? [];
    const printed = read.find((p) => p.currency !== null && options.some((o) => o.currency === p.currency))?.currency;
    const expected = options.find((o) => o.currency === printed) ?? options[0] ?? null;
    let status: PriceStatus;
    if (!expected) status = 'no_expected_price';
    else if (tags.length === 0) status = 'no_tag';
    else if (read.length === 0) status = 'unreadable';
    else if (read.some((p) => p.hundredths !== expected.cents || (p.currency !== null && p.currency !== expected.currency))) status = 'wrong_price';
    else status = 'ok';
    return {
      sku_id: sku,
      name: input.names.get(sku) ?? null,
      facings: facings.get(sku) ?? 0,
      expected_price: expected ? moneyText(expected.cents) : null,
      expected_currency: expected?.currency ?? null,
      price_record: expected?.id ?? null,
      found_prices: found,
      tags: tags.map(({ image, index }) => ({ image, index })),
      status,
    };
  });
  const checked = items.filter((i) => i.status !== 'no_expected_price').length;
  const ok = items.filter((i) => i.status === 'ok').length;
  const bay = bayBody(analysis);
  return {
    shop: input.shop,
    day: input.day,
    // Nothing to check (no price listed for the shop and day): no figure, rather than a flattering 100 %.
    compliance: checked === 0 ? null : Math.round((ok / checked) * 10_000) / 10_000,
    checked,
    ok,
    skus: items,
    unlinked_tags: unlinked,
    ...(bay ? { bay } : {}),
  };
}
