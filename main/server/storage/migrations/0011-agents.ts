// Agents (the merchandisers who take the photos): created and renamed by POST /recognize's
// metadata.agent_id / agent_name, and each scene linked to the agent that sent it. The scenes' display
// index serves the lookup of a new report's previous_report (the latest report on the same display).
import { type Migration } from 'kysely';
import { keyed, ref, stamped } from './conventions.js';

export const agents: Migration = {
  async up(db) {
    // `id` is the client's agent_id as sent (the interface calls it the "agent client ID").
    await stamped(keyed(db, 'agents').addColumn('name', 'varchar(255)')).execute();
    // Agents are never deleted through the API; "set null" only keeps a manual clean-up from failing.
    await db.schema.alterTable('scenes').addColumn('agent_id', 'varchar(255)', ref('agents', 'set null')).execute();
    await db.schema.createIndex('scenes_agent').on('scenes').column('agent_id').execute();
    await db.schema.createIndex('scenes_display').on('scenes').column('display_id').execute();
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
