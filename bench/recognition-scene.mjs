// What the recognition benches recognise, made once here: the catalog (8 soft-drink SKUs x 3
// reference crops + 31 Grocery Store packshots, added through the API so descriptors are computed
// as in the app) and two 12 MP shelf photos: a real SKU-110K shelf (test_1079 by default, scaled to
// 4000x3000; none of its products is in the catalog: the worst case, every product is verified
// against the whole shortlist) and a shelf composed of catalog products (crops not used as
// references), the case the app is for.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';

export const DATA = path.resolve(process.env.SHARED_DATA ?? '../shared/data');
const crops = path.join(DATA, 'sku-crops');
export const catalogSkus = readdirSync(crops).filter((d) => !d.includes('.') && d !== 'LICENSE');

/** A JSON client of the server's API with an API key; throws on an error status. */
export function apiClient(url, key) {
  const headers = { authorization: `Token ${key}` };
  async function api(method, p, body) {
    const init = { method, headers: { ...headers } };
    if (body instanceof FormData) init.body = body;
    else if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers['content-type'] = 'application/json';
    }
    const res = await fetch(url + p, init);
    const json = await res.json();
    if (res.status >= 400) throw new Error(`${method} ${p} -> ${res.status} ${JSON.stringify(json)}`);
    return json;
  }
  async function upload(bytes) {
    const form = new FormData();
    form.append('datafile', new Blob([bytes], { type: 'image/jpeg' }), 'p.jpg');
    return api('POST', '/api/v1.5/uploads/', form);
  }
  return { api, upload };
}

/** Adds the catalog's SKUs and reference images; returns how many references. */
export async function addCatalog({ api, upload }) {
  let refs = 0;
  for (const sku of catalogSkus) {
    await api('POST', '/api/v1.5/sku/', { id: sku, name: sku });
    for (const f of readdirSync(path.join(crops, sku)).sort().slice(0, 3)) {
      const up = await upload(readFileSync(path.join(crops, sku, f)));
      await api('POST', `/api/v1.5/sku/${sku}/images/`, { image: up.id });
      refs++;
    }
  }
  const iconic = path.join(DATA, 'grocery-store-dataset/dataset/iconic-images-and-descriptions/Packages');
  for (const group of readdirSync(iconic)) {
    for (const cls of readdirSync(path.join(iconic, group))) {
      const file = readdirSync(path.join(iconic, group, cls)).find((f) => f.endsWith('_Iconic.jpg'));
      await api('POST', '/api/v1.5/sku/', { id: cls, name: cls });
      const up = await upload(readFileSync(path.join(iconic, group, cls, file)));
      await api('POST', `/api/v1.5/sku/${cls}/images/`, { image: up.id });
      refs++;
    }
  }
  return refs;
}

/** The real shelf photo, scaled to 12 MP (4000x3000), as JPEG bytes. */
export async function realShelfPhoto(file = process.env.RECOGNITION_BENCH_PHOTO ?? 'test_1079.jpg') {
  const bytes = await sharp(path.join(DATA, 'shelf-photos', file)).rotate().resize(4000, 3000, { fit: 'fill' }).jpeg({ quality: 90 }).toBuffer();
  return { label: `real shelf photo ${file}`, bytes };
}

/** 5 shelves of upright bottles and cartons, 500 px tall, packed side by side, on a 4000x3000 photo. */
export async function composedShelfPhoto() {
  const upright = ['fanta_pet', 'sprite_pet', 'cocacola_pet', 'cream_soda_pet', 'minute_maid'];
  const layers = [];
  let placed = 0;
  for (let row = 0; row < 5; row++) {
    let x = 20;
    for (let i = 0; ; i++) {
      const sku = upright[(row + Math.floor(i / 4)) % upright.length];
      const files = readdirSync(path.join(crops, sku)).sort().slice(3);
      const input = await sharp(path.join(crops, sku, files[i % files.length])).resize({ height: 500 }).toBuffer();
      const { width } = await sharp(input).metadata();
      if (x + width > 3980) break;
      layers.push({ input, left: x, top: 30 + row * 590 });
      x += width + 4;
      placed++;
    }
  }
  const bytes = await sharp({ create: { width: 4000, height: 3000, channels: 3, background: { r: 80, g: 70, b: 60 } } })
    .composite(layers)
    .jpeg({ quality: 90 })
    .toBuffer();
  return { label: `composed shelf of ${placed} catalog products`, bytes };
}
