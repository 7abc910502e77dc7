// Tasks (Data API): read-only over HTTP, written by the master-data import.
import type { ResourceDef } from './resource.js';

export const tasks: ResourceDef = {
  table: 'tasks',
  entity: 'task',
  label: 'task',
  fields: {
    name: { column: 'name' },
    short_description: { column: 'short_description' },
    long_description: { column: 'long_description' },
    is_enabled: { column: 'is_enabled', kind: 'bool' },
    is_required: { column: 'is_required', kind: 'bool' },
  },
  defaults: { is_enabled: 1, is_required: 0 },
};
