// The recognition flow through the real API: a catalog with reference images, a composed shelf photo
// of known layout uploaded and recognized with the shipped detector, and the reports checked against
// the layout: facings per SKU, planogram compliance (matching and non-matching planogram), MHL with
// an alternative SKU, realogram and share of space, KPI values on the visit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../api/harness.js';
import { composeShelf, UPRIGHT } from './fixtures.js';
import { createCatalog, upload, waitForReports } from './helpers.js';

// Top shelf: 3 Fanta, 2 Sprite, 2 Coca-Cola; bottom shelf: 3 Cream Soda, 4 Minute Maid.
const LAYOUT: Array<Array<[string, number]>> = [
  [['fanta_pet', 3], ['sprite_pet', 2], ['cocacola_pet', 2]],
  [['cream_soda_pet', 3], ['minute_maid', 4]],
];
const EXPECTED: Record<string, number> = { fanta_pet: 3, sprite_pet: 2, cocacola_pet: 2, cream_soda_pet: 3, minute_maid: 4 };

let t: TestServer;
let photo: { id: string; width: number; height: number };

beforeAll(async () => {
  t = await startTestServer();
  await createCatalog(t, UPRIGHT);
  const shelf = await composeShelf(LAYOUT);
  photo = await upload(t, shelf.jpeg, 'shelf.jpg');
});
afterAll(async () => t?.close());

async function planogram(id: string, display: string, rows: Array<Array<[string, number]>>) {
  expect((await t.post('/api/v1.5/planograms/', { id, name: id, display })).status).toBe(201);
  let productIndex = 0;
  for (const [shelfIndex, row] of rows.entries()) {
    for (const [sku, facings] of row) {
      const r = await t.post('/api/v1.5/planogram_records/', {
        planogram: id, sku, rack_index: 0, shelf_index: shelfIndex, product_index: productIndex++, facing_x: facings, facing_y: 1,
      });
      expect(r.status, r.text).toBe(201);
    }
  }
}

describe('recognition of a composed shelf photo', () => {
  let reports: Record<string, any>;
  let created: any;

  beforeAll(async () => {
    expect((await t.post('/api/v1.5/displays/', { id: 'd-ok', name: 'matching display' })).status).toBe(201);
    await planogram('pg-ok', 'd-ok', LAYOUT);
    expect((await t.post('/api/v1.5/mhl/', { id: 'mhl-ok', name: 'must have', display: 'd-ok' })).status).toBe(201);
    // Pepsi is not on the shelf, but its alternative Sprite is; the grocery carton is not there at all.
    await t.post('/api/v1.5/sku/', { id: 'pepsi', name: 'Pepsi' });
    const mhlRecords = [
      { id: 'm-fanta', musthavelist: 'mhl-ok', sku: 'fanta_pet' },
      { id: 'm-alt', musthavelist: 'mhl-ok', sku: 'pepsi', sku2: 'sprite_pet' },
      { id: 'm-absent', musthavelist: 'mhl-ok', sku: 'grocery-Bravo-Apple-Juice' },
    ];
    for (const r of mhlRecords) expect((await t.post('/api/v1.5/mhl_record/', r)).status).toBe(201);

    const res = await t.post('/api/v1.5/recognize/', {
      images: [photo.id],
      display: 'd-ok',
      report_types: ['FACING_COUNT', 'PLANOGRAM_COMPLIANCE', 'MHL_COMPLIANCE', 'REALOGRAM', 'SHARE_OF_SPACE'],
      metadata: { agent_id: 'agent-7', agent_name: 'Ann' },
    });
    expect(res.status, res.text).toBe(201);
    created = res.body;
    reports = await waitForReports(t, Object.values(created.reports));
  }, 300_000);

  it('answers 201 with the scene, a new visit and one report per type', () => {
    expect(created.images).toEqual([photo.id]);
    expect(Object.keys(created.reports).sort()).toEqual(['FACING_COUNT', 'MHL_COMPLIANCE', 'PLANOGRAM_COMPLIANCE', 'REALOGRAM', 'SHARE_OF_SPACE']);
    expect(typeof created.scene).toBe('string');
    expect(typeof created.visit).toBe('string');
  });

  it('counts facings per SKU', () => {
    const fc = reports[created.reports.FACING_COUNT];
    expect(fc.status, fc.error).toBe('READY');
    const counts = Object.fromEntries(fc.json.map((r: any) => [r.sku_id, r.count]));
    expect(counts).toEqual(EXPECTED);
  });

  it('finds the matching planogram fully compliant', () => {
    const pc = reports[created.reports.PLANOGRAM_COMPLIANCE];
    expect(pc.status, pc.error).toBe('READY');
    expect(pc.json.planogram).toBe('pg-ok');
    expect(pc.json.expected_faces).toBe(14);
    expect(pc.json.compliance).toBe(1);
    expect(pc.json.positions.every((p: any) => p.status === 'ok')).toBe(true);
    expect(pc.json.actions).toEqual([]);
  });

  it('judges the must-have list with an alternative SKU', () => {
    const mhl = reports[created.reports.MHL_COMPLIANCE];
    expect(mhl.status, mhl.error).toBe('READY');
    const byId = Object.fromEntries(mhl.json.records.map((r: any) => [r.mhl_record_id, r]));
    expect(byId['m-fanta']).toMatchObject({ compliant: true, found_sku_id: 'fanta_pet' });
    expect(byId['m-alt']).toMatchObject({ compliant: true, found_sku_id: 'sprite_pet' });
    expect(byId['m-absent']).toMatchObject({ compliant: false, found_sku_id: null });
    expect(mhl.json.compliance).toBeCloseTo(2 / 3, 3);
  });

  it('places every product on its shelf in the realogram, with shares of space', () => {
    const rg = reports[created.reports.REALOGRAM];
    expect(rg.status, rg.error).toBe('READY');
    expect(rg.json).toHaveLength(1);
    const img = rg.json[0];
    expect(img).toMatchObject({ image: photo.id, width: photo.width, height: photo.height });
    expect(img.shelf_annotations).toHaveLength(2);
    const top = img.annotations.filter((a: any) => a.shelf_index === 0).sort((a: any, b: any) => a.x - b.x).map((a: any) => a.sku_id);
    expect(top).toEqual(['fanta_pet', 'fanta_pet', 'fanta_pet', 'sprite_pet', 'sprite_pet', 'cocacola_pet', 'cocacola_pet']);
    const sos = reports[created.reports.SHARE_OF_SPACE];
    expect(sos.status).toBe('READY');
    const total = sos.json.reduce((s: number, r: any) => s + r.share_of_count, 0);
    expect(total).toBeCloseTo(1, 3);
    expect(sos.json.find((r: any) => r.sku_id === 'minute_maid').share_of_count).toBeCloseTo(4 / 14, 3);
  });

  it('writes the visit KPI values (OSA, planogram compliance, total facings)', async () => {
    const visits = await t.get('/api/data/v1.0/visits/?is_new=true&limit=1000');
    const visit = visits.body.results.find((v: any) => v.cid === created.visit);
    const detail = await t.get(`/api/data/v1.0/visits/${visit.id}/`);
    const kpis = await t.get('/api/data/v1.0/kpi/');
    const byCid = Object.fromEntries(kpis.body.results.map((k: any) => [k.cid, k.id]));
    const value = (cid: string) => detail.body.kpi_values.find((v: any) => v.kpi === byCid[cid])?.value;
    expect(value('shelf-audit:total-facings')).toBe(14);
    expect(value('shelf-audit:planogram-compliance')).toBe(100);
    expect(value('shelf-audit:osa')).toBeCloseTo(66.67, 2);
    expect(detail.body.scenes[0].facing_counts).toHaveLength(5);
  });

  it('finds a non-matching planogram non-compliant, with the actions to fix it', async () => {
    expect((await t.post('/api/v1.5/displays/', { id: 'd-bad', name: 'other display' })).status).toBe(201);
    // Planned: 3 Coca-Cola (2 there), 4 Sprite (2 there), then 2 Pepsi past the shelf's last product;
    // the 3 Fanta are not planned on that shelf.
    await planogram('pg-bad', 'd-bad', [
      [['cocacola_pet', 3], ['sprite_pet', 4], ['pepsi', 2]],
      [['cream_soda_pet', 3], ['minute_maid', 4]],
    ]);
    const res = await t.post('/api/v1.5/recognize/', { images: [photo.id], display: 'd-bad', report_types: ['PLANOGRAM_COMPLIANCE'] });
    expect(res.status, res.text).toBe(201);
    const id = res.body.reports.PLANOGRAM_COMPLIANCE;
    const pc = (await waitForReports(t, [id]))[id];
    expect(pc.status, pc.error).toBe('READY');
    const byRecord = (sku: string, shelf: number) => pc.json.positions.find((p: any) => p.sku_id === sku && p.shelf_index === shelf && p.planogram_record);
    expect(byRecord('cocacola_pet', 0)).toMatchObject({ status: 'fewer_facings', expected_facings: 3, found_facings: 2 });
    expect(byRecord('sprite_pet', 0)).toMatchObject({ status: 'fewer_facings', expected_facings: 4, found_facings: 2 });
    expect(byRecord('pepsi', 0)).toMatchObject({ status: 'missing', found_facings: 0, found_sku_ids: [] });
    expect(byRecord('minute_maid', 1)).toMatchObject({ status: 'ok' });
    expect(pc.json.extra).toEqual([{ sku_id: 'fanta_pet', count: 3 }]);
    expect(pc.json.expected_faces).toBe(16);
    expect(pc.json.correct_faces).toBe(11);
    expect(pc.json.compliance).toBeCloseTo(11 / 16, 3);
    expect(pc.json.actions.map((a: any) => [a.type, a.sku_id, a.count])).toEqual([
      ['add_facings', 'cocacola_pet', 1],
      ['add_facings', 'sprite_pet', 2],
      ['add', 'pepsi', 2],
      ['remove', 'fanta_pet', 3],
    ]);
  });
});
