// Agents from POST /recognize's metadata (created, renamed, linked to the scene, read through
// /api/app/v1/agents/), a report's previous_report, and migration 0011 on a database made before it.
// Nothing here waits for reports: the links are made when /recognize answers.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import Database from 'better-sqlite3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../main/server/storage/database.js';
import { migrations } from '../../main/server/storage/migrations/index.js';
import { startTestServer, type TestServer } from '../api/harness.js';
import { upload } from './helpers.js';

let t: TestServer;
let photo: string;

beforeAll(async () => {
  t = await startTestServer();
  // A small plain photo: the jobs these requests queue finish quickly and are not looked at.
  const bytes = await sharp({ create: { width: 96, height: 64, channels: 3, background: '#468' } }).jpeg().toBuffer();
  photo = (await upload(t, bytes)).id;
  for (const id of ['d1', 'd2']) expect((await t.post('/api/v1.5/displays/', { id, name: id })).status).toBe(201);
}, 120_000);
afterAll(async () => t?.close());

async function recognize(body: Record<string, unknown>): Promise<any> {
  const res = await t.post('/api/v1.5/recognize/', { images: [photo], ...body });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

function sceneRow(id: string): any {
  return (t.snapshot().scenes as any[]).find((s) => s.id === id);
}

async function previousOf(reportId: string): Promise<string | null> {
  const res = await t.get(`/api/v1.5/reports/${reportId}/`);
  expect(res.status).toBe(200);
  return res.body.previous_report;
}

describe('agents from /recognize metadata', () => {
  it('creates the agent, links the scene and fills the new visit', async () => {
    const res = await recognize({ metadata: { agent_id: 'agent-7', agent_name: 'Ann' } });
    const agent = await t.get('/api/app/v1/agents/agent-7/');
    expect(agent.status).toBe(200);
    expect(agent.body).toEqual({ id: 'agent-7', name: 'Ann', created_date: expect.any(String), updated_date: agent.body.created_date });
    expect(sceneRow(res.scene).agent_id).toBe('agent-7');
    expect((await t.get(`/api/v1.5/visits/${res.visit}/`)).body).toMatchObject({ agent: 'agent-7', current_agent_name: 'Ann' });
    // The Data API's visit detail shows the scene with its agent.
    const dataVisit = (await t.get(`/api/data/v1.0/visits/?cid=${res.visit}`)).body.results[0];
    const detail = (await t.get(`/api/data/v1.0/visits/${dataVisit.id}/`)).body;
    expect(detail.scenes).toEqual([expect.objectContaining({ id: res.scene, agent_id: 'agent-7' })]);
    const outbox = t.snapshot().outbox as Array<{ entity: string; record_id: string }>;
    expect(outbox.filter((o) => o.entity === 'agent').map((o) => o.record_id)).toEqual(['agent-7']);
  });

  it('renames the agent when a later request sends another name, and only then', async () => {
    const before = (await t.get('/api/app/v1/agents/agent-7/')).body;
    const res = await recognize({ metadata: { agent_id: 'agent-7', agent_name: 'Anna' } });
    const after = (await t.get('/api/app/v1/agents/agent-7/')).body;
    expect(after).toMatchObject({ id: 'agent-7', name: 'Anna', created_date: before.created_date });
    expect(after.updated_date >= before.updated_date).toBe(true);
    expect(sceneRow(res.scene).agent_id).toBe('agent-7');

    // Same name, or no name: nothing to change (no outbox row either).
    const agentRows = () => (t.snapshot().outbox as Array<{ entity: string }>).filter((o) => o.entity === 'agent').length;
    const n = agentRows();
    await recognize({ metadata: { agent_id: 'agent-7', agent_name: 'Anna' } });
    const unnamed = await recognize({ metadata: { agent_id: 'agent-7' } });
    expect(agentRows()).toBe(n);
    expect((await t.get('/api/app/v1/agents/agent-7/')).body).toEqual(after);
    expect(sceneRow(unnamed.scene).agent_id).toBe('agent-7');
  });

  it('creates an unnamed agent, links scenes added to a named visit, and ignores a null agent_id', async () => {
    const first = await recognize({});
    const res = await recognize({ visit: first.visit, metadata: { agent_id: 'agent-8' } });
    expect(res.visit).toBe(first.visit);
    expect((await t.get('/api/app/v1/agents/agent-8/')).body).toMatchObject({ id: 'agent-8', name: null });
    expect(sceneRow(res.scene).agent_id).toBe('agent-8');
    expect(sceneRow(first.scene).agent_id).toBeNull();
    const count = (await t.get('/api/app/v1/agents/')).body.count;
    const nulls = await recognize({ metadata: { agent_id: null, agent_name: null } });
    expect(sceneRow(nulls.scene).agent_id).toBeNull();
    expect((await t.get('/api/app/v1/agents/')).body.count).toBe(count);
  });

  it('agent_name without agent_id names only the new visit, no agent', async () => {
    const count = (await t.get('/api/app/v1/agents/')).body.count;
    const res = await recognize({ metadata: { agent_name: 'Bob' } });
    expect(sceneRow(res.scene).agent_id).toBeNull();
    expect((await t.get(`/api/v1.5/visits/${res.visit}/`)).body).toMatchObject({ agent: null, current_agent_name: 'Bob' });
    expect((await t.get('/api/app/v1/agents/')).body.count).toBe(count);
  });

  it('refuses blank or overlong agent ids and names with a 400, changing nothing', async () => {
    // The worker is still finishing earlier scenes, so compare what /recognize itself creates.
    const created = () => {
      const s = t.snapshot();
      return { agents: s.agents, ...Object.fromEntries(['visits', 'scenes', 'reports', 'recognition_jobs'].map((k) => [k, s[k].length])) };
    };
    const before = created();
    const cases: Array<[unknown, unknown]> = [
      [{ agent_id: '' }, { metadata: ['This field may not be blank.'] }],
      [{ agent_id: 'a', agent_name: '' }, { metadata: ['This field may not be blank.'] }],
      [{ agent_id: 'x'.repeat(256) }, { metadata: ['Ensure this field has no more than 255 characters.'] }],
      ['agent-7', { metadata: ['Expected a dictionary of items.'] }],
    ];
    for (const [metadata, errors] of cases) {
      const res = await t.post('/api/v1.5/recognize/', { images: [photo], metadata });
      expect(res.status, JSON.stringify(metadata)).toBe(400);
      expect(res.body).toEqual(errors);
    }
    expect(created()).toEqual(before);
  });

  it('lists agents oldest first, paginated; 404 for an unknown agent; a token is needed', async () => {
    const all = await t.get('/api/app/v1/agents/');
    expect(all.status).toBe(200);
    expect(all.body.results.map((a: any) => a.id)).toEqual(['agent-7', 'agent-8']);
    const page = await t.get('/api/app/v1/agents/?limit=1');
    expect(page.body).toMatchObject({ count: 2, previous: null, next: `${t.url}/api/app/v1/agents/?limit=1&offset=1` });
    expect(page.body.results).toEqual([all.body.results[0]]);
    // DRF falls back to the default page size for a bad limit (test/api/pagination-fallback.test.ts).
    expect((await t.get('/api/app/v1/agents/?limit=0')).body).toMatchObject({ count: 2, next: null });
    expect(await t.get('/api/app/v1/agents/nobody/')).toMatchObject({ status: 404, body: { detail: 'Not found.' } });
    for (const p of ['/api/app/v1/agents/', '/api/app/v1/agents/agent-7/']) {
      const res = await t.get(p, { token: null });
      expect(res.status, p).toBe(401);
      expect(res.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    }
    const doc = (await t.get('/api/schema/')).body;
    expect(doc.paths['/api/app/v1/agents/'].get).toBeDefined();
    expect(doc.paths['/api/app/v1/agents/{id}/'].get.responses['200']).toBeDefined();
  });
});

describe('previous_report', () => {
  it('is the latest earlier report of the same type on the same display, fixed at creation', async () => {
    const a = await recognize({ display: 'd1', report_types: ['FACING_COUNT'] });
    expect(await previousOf(a.reports.FACING_COUNT)).toBeNull();

    const b = await recognize({ display: 'd1', report_types: ['FACING_COUNT', 'REALOGRAM'] });
    expect(await previousOf(b.reports.FACING_COUNT)).toBe(a.reports.FACING_COUNT);
    expect(await previousOf(b.reports.REALOGRAM)).toBeNull(); // the first REALOGRAM on d1

    // Another display, or none: a chain of its own, or no chain.
    const other = await recognize({ display: 'd2', report_types: ['FACING_COUNT'] });
    expect(await previousOf(other.reports.FACING_COUNT)).toBeNull();
    const none = await recognize({ report_types: ['FACING_COUNT'] });
    expect(await previousOf(none.reports.FACING_COUNT)).toBeNull();

    // The latest one, in another visit too; the display given as a list of one.
    const c = await recognize({ display: ['d1'], report_types: ['REALOGRAM', 'FACING_COUNT'] });
    expect(await previousOf(c.reports.FACING_COUNT)).toBe(b.reports.FACING_COUNT);
    expect(await previousOf(c.reports.REALOGRAM)).toBe(b.reports.REALOGRAM);

    // force_update recomputes a report but keeps its place in the chain.
    expect((await t.post('/api/v1.5/reports/force_update/', { reports: [b.reports.FACING_COUNT] })).status).toBe(200);
    expect(await previousOf(b.reports.FACING_COUNT)).toBe(a.reports.FACING_COUNT);
    const listed = (await t.get(`/api/v1.5/reports/?scene=${c.scene}&report_type=FACING_COUNT`)).body.results;
    expect(listed[0].previous_report).toBe(b.reports.FACING_COUNT);
  });
});

describe('migration 0011-agents', () => {
  it('upgrades a database made before it, keeping its scenes (unlinked)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-0011-'));
    try {
      const file = path.join(dir, 'shelf-audit.sqlite');
      const sqlite = new Database(file);
      sqlite.pragma('foreign_keys = ON');
      const old = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
      const before = { '0001-core': migrations['0001-core'], '0010-recognition': migrations['0010-recognition'] };
      const { error } = await new Migrator({ db: old, provider: { getMigrations: async () => before } }).migrateToLatest();
      expect(error).toBeUndefined();
      const at = '2026-11-01T10:00:00.000Z';
      await old.insertInto('visits').values({ id: 'v-old', is_new: 1, is_closed: 0, created_at: at, updated_at: at }).execute();
      await old
        .insertInto('scenes')
        .values({ id: 's-old', request_id: 'r-old', visit_id: 'v-old', images: '[]', options: '{}', created_at: at, updated_at: at })
        .execute();
      await old.destroy();

      const opened = await openDatabase(dir);
      try {
        const scenes = await (opened.db as Kysely<any>).selectFrom('scenes').select(['id', 'agent_id']).execute();
        expect(scenes).toEqual([{ id: 's-old', agent_id: null }]);
        expect(await opened.db.selectFrom('agents').selectAll().execute()).toEqual([]);
      } finally {
        await opened.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
