// Import files: a JSON document with every entity, or a CSV of one entity (header row = field names;
// empty cells are left out; `attributes` holds a JSON object). Both become an ImportDocument.
import { parse } from 'csv-parse/sync';
import { IMPORTED } from '../storage/sync-registry.js';
import { RejectedError } from './errors.js';
import type { EntityKey, ImportDocument } from './import.js';

/** A CSV names its entity by its key (`brands`), its entity name (`brand`) or an alias (`musthavelist`). */
const NAMES = new Map<string, EntityKey>(IMPORTED.flatMap((e) => [e.key, e.entity, ...e.aliases].map((name) => [name, e.key] as const)));

export function entityKey(name: string): EntityKey {
  const key = NAMES.get(name.trim().toLowerCase().replaceAll('-', '_'));
  if (key) return key;
  throw new RejectedError({ detail: `Unknown entity "${name}". Known: ${IMPORTED.map((e) => e.key).join(', ')}.` });
}

export function parseJsonImport(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RejectedError({ detail: `Malformed JSON: ${(error as Error).message}` });
  }
}

export function parseCsvImport(text: string, entity: string): ImportDocument {
  const key = entityKey(entity);
  let records: Array<Record<string, string>>;
  try {
    records = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true });
  } catch (error) {
    throw new RejectedError({ detail: `Malformed CSV: ${(error as Error).message}` });
  }
  const rows = records.map((record) => {
    const row: Record<string, unknown> = {};
    for (const [field, cell] of Object.entries(record)) {
      if (cell === '') continue;
      if (field === 'attributes') {
        try {
          row[field] = JSON.parse(cell);
        } catch {
          row[field] = cell; // left for validation to reject with the field's message
        }
      } else row[field] = cell;
    }
    return row;
  });
  return { [key]: rows };
}

