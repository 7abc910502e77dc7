// Master-data import: brands, categories, manufacturers, SKUs, displays, planograms with records,
// MHLs with records, tasks and KPIs in one transaction. Rows are validated by the API's own schemas
// and foreign-key checks, upserted by id (or a natural key), and either all land or none does: a
// failed import answers every failed row and changes nothing.
import type { Kysely } from 'kysely';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { ImportRowSchemas } from '../schemas/import.js';
import { MONEY_PATTERN } from '../schemas/prices.js';
import { newId, now } from '../storage/ids.js';
import type { Database } from '../storage/schema.js';
import { write, type WriteContext } from '../storage/transaction.js';
import { IMPORTED, type ImportedTable } from '../storage/sync-registry.js';
import { brands, categories, manufacturers } from './catalogs.js';
import { displays, mhlRecords, mhls, planogramRecords, planograms } from './displays.js';
import { RejectedError, ValidationError } from './errors.js';
import { drfFieldErrors, type SchemaError } from './field-errors.js';
import { kpis } from './kpis.js';
import { prices } from './prices.js';
import { createRecord, updateRecord, type ResourceDef } from './resource.js';
import { skus } from './skus.js';
import { tasks } from './tasks.js';

type Row = Record<string, unknown>;
/** An imported entity's key in an import document: its table's name (storage/sync-registry.ts). */
export type EntityKey = ImportedTable;
export type ImportDocument = Partial<Record<EntityKey, Row[]>>;

interface EntitySpec {
  key: EntityKey;
  def: ResourceDef;
  /** Matches an existing record when a row has no id. */
  naturalKey?: string;
}

/** The API's definition of each imported entity: its fields, references and messages. */
const RESOURCES: Record<EntityKey, ResourceDef> = {
  brands,
  categories,
  manufacturers,
  skus,
  displays,
  planograms,
  planogram_records: planogramRecords,
  mhls,
  mhl_records: mhlRecords,
  tasks,
  kpis,
  price_list: prices,
};

/** The registry's imported entities, in its order: every reference points at an entity imported earlier. */
export const IMPORT_ENTITIES: EntitySpec[] = IMPORTED.map((e) => ({ key: e.key, def: RESOURCES[e.key], naturalKey: e.naturalKey }));

export interface ImportFailure {
  entity: string;
  /** 0-based position of the row in its entity's array (a CSV's first data row is 0). */
  index: number;
  id: string | null;
  errors: Record<string, unknown>;
}

export interface ImportSummary {
  created: Record<string, number>;
  updated: Record<string, number>;
  finished_at: string;
}

type RowSchema = { properties: Record<string, { type?: string | string[]; pattern?: string }> };

/**
 * "3" -> 3 and "true" -> true where the row schema wants a number or boolean: the coercion the API
 * applies to form bodies, needed for CSV cells (all text) and applied to JSON rows alike.
 */
function coerceRow(schema: RowSchema, row: Row): void {
  for (const [field, value] of Object.entries(row)) {
    const t = schema.properties[field]?.type;
    const types = Array.isArray(t) ? t : t ? [t] : [];
    // A price written as a JSON number (1.99): its text, the amount the API takes ("1.99").
    if (typeof value === 'number' && Number.isFinite(value) && schema.properties[field]?.pattern === MONEY_PATTERN) row[field] = String(value);
    if (typeof value !== 'string') continue;
    if ((types.includes('number') || types.includes('integer')) && value.trim() !== '' && Number.isFinite(Number(value))) {
      row[field] = Number(value);
    } else if (types.includes('boolean') && /^(true|false|1|0)$/i.test(value)) {
      row[field] = /^(true|1)$/i.test(value);
    }
  }
}

/** Nested `records` of planograms and MHLs become rows of their own entity, pointing at the parent. */
function flatten(doc: ImportDocument): ImportDocument {
  const out: ImportDocument = { ...doc };
  const nest = (parentKey: 'planograms' | 'mhls', childKey: 'planogram_records' | 'mhl_records', link: string) => {
    const parents = doc[parentKey];
    if (!Array.isArray(parents)) return;
    const children: Row[] = [];
    out[parentKey] = parents.map((p) => {
      if (!p || typeof p !== 'object' || !Array.isArray((p as Row).records)) return p;
      const { records, ...parent } = p as Row;
      parent.id ??= newId();
      for (const r of records as Row[]) children.push(r && typeof r === 'object' ? { ...r, [link]: parent.id } : r);
      return parent;
    });
    if (children.length > 0) out[childKey] = [...(Array.isArray(doc[childKey]) ? doc[childKey]! : []), ...children];
  };
  nest('planograms', 'planogram_records', 'planogram');
  nest('mhls', 'mhl_records', 'musthavelist');
  return out;
}

async function existingId(ctx: WriteContext, spec: EntitySpec, row: Row): Promise<string | undefined> {
  const db = ctx.trx as Kysely<any>;
  if (typeof row.id === 'string') {
    const hit = await db.selectFrom(spec.def.table).select('id').where('id', '=', row.id).executeTakeFirst();
    return hit?.id;
  }
  const natural = spec.naturalKey ? row[spec.naturalKey] : undefined;
  if (natural === undefined || natural === null) return undefined;
  const column = spec.def.fields[spec.naturalKey!].column;
  const hit = await db.selectFrom(spec.def.table).select('id').where(column, '=', natural).orderBy('data_id').executeTakeFirst();
  return hit?.id;
}

function checkShape(doc: unknown): asserts doc is ImportDocument {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new RejectedError({ detail: 'Invalid data. Expected a dictionary with one list of rows per entity.' });
  }
  const known = new Set<string>(IMPORT_ENTITIES.map((e) => e.key));
  const unknown = Object.keys(doc).filter((k) => !known.has(k));
  const notLists = Object.entries(doc).filter(([k, v]) => known.has(k) && !Array.isArray(v)).map(([k]) => k);
  if (unknown.length > 0 || notLists.length > 0) {
    throw new RejectedError({
      detail: 'Invalid import document; nothing was imported.',
      ...(unknown.length ? { unknown_entities: unknown, known_entities: [...known] } : {}),
      ...(notLists.length ? { not_lists: notLists } : {}),
    });
  }
}

/** Applies the document in one transaction; throws RejectedError with every failed row otherwise. */
export async function importMasterData(db: Kysely<Database>, document: unknown, source: string | null = null): Promise<ImportSummary> {
  checkShape(document);
  const doc = flatten(document);
  return write(db, async (ctx) => {
    const failures: ImportFailure[] = [];
    const created: Record<string, number> = {};
    const updated: Record<string, number> = {};
    for (const spec of IMPORT_ENTITIES) {
      const rows = doc[spec.key];
      if (!rows) continue;
      created[spec.key] = 0;
      updated[spec.key] = 0;
      const schema: TSchema = ImportRowSchemas[spec.key];
      for (let index = 0; index < rows.length; index++) {
        const row = rows[index];
        const id = row && typeof row === 'object' && typeof row.id === 'string' ? row.id : null;
        if (row && typeof row === 'object') coerceRow(schema as unknown as RowSchema, row);
        const errors = Value.Check(schema, row) ? [] : [...Value.Errors(schema, row)];
        if (errors.length > 0) {
          failures.push({ entity: spec.key, index, id, errors: drfFieldErrors(errors as unknown as SchemaError[], row) });
          continue;
        }
        try {
          const existing = await existingId(ctx, spec, row);
          if (existing) {
            await updateRecord(ctx, spec.def, existing, { ...row, id: existing });
            updated[spec.key]++;
          } else {
            await createRecord(ctx, spec.def, row);
            created[spec.key]++;
          }
        } catch (error) {
          if (!(error instanceof ValidationError)) throw error;
          failures.push({ entity: spec.key, index, id, errors: error.fields });
        }
      }
    }
    if (failures.length > 0) {
      throw new RejectedError({
        detail: `Import failed: ${failures.length} invalid row${failures.length === 1 ? '' : 's'}; nothing was imported.`,
        failures,
      });
    }
    const finished_at = now();
    await ctx.trx
      .insertInto('imports')
      .values({ id: newId(), finished_at, source, summary: JSON.stringify({ created, updated }) })
      .execute();
    return { created, updated, finished_at };
  });
}
