// Agents (merchandisers): created and renamed by POST /recognize's metadata {agent_id, agent_name}, read
// through the app's /api/app/v1/agents/. The id is the client's agent_id, so the same agent sending
// from several laptops is one record once they sync.
import type { Kysely } from 'kysely';
import { now } from '../storage/ids.js';
import type { AgentTable, Database } from '../storage/schema.js';
import type { WriteContext } from '../storage/transaction.js';
import { NotFoundError } from './errors.js';

export interface AgentRecord {
  id: string;
  name: string | null;
  created_date: string;
  updated_date: string;
}

/**
 * Makes sure agent `id` exists, inside the caller's transaction: creates it (named `name`, or unnamed)
 * when missing; renames it when `name` is given and differs. A missing `name` leaves the name alone.
 */
export async function ensureAgent(ctx: WriteContext, id: string, name: string | null): Promise<void> {
  const at = now();
  // ON CONFLICT rather than select-then-insert: two PostgreSQL transactions naming the same new
  // agent at once would otherwise both insert, and one would fail on the unique id.
  const inserted = await ctx.trx
    .insertInto('agents')
    .values({ id, name, created_at: at, updated_at: at })
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) {
    ctx.changed('agent', id);
    return;
  }
  if (name === null) return;
  const renamed = await ctx.trx
    .updateTable('agents')
    .set({ name, updated_at: at })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('name', 'is', null), eb('name', '!=', name)]))
    .executeTakeFirst();
  if (Number(renamed.numUpdatedRows) > 0) ctx.changed('agent', id);
}

type AgentRow = Pick<AgentTable, 'id' | 'name' | 'created_at' | 'updated_at'>;

function present(r: AgentRow): AgentRecord {
  return { id: r.id, name: r.name, created_date: r.created_at, updated_date: r.updated_at };
}

export async function listAgents(db: Kysely<Database>, page: { limit: number; offset: number }): Promise<{ count: number; results: AgentRecord[] }> {
  const [{ n }] = await db.selectFrom('agents').select((eb) => eb.fn.countAll().as('n')).execute();
  const rows = await db
    .selectFrom('agents')
    .select(['id', 'name', 'created_at', 'updated_at'])
    .orderBy('data_id')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { count: Number(n), results: rows.map(present) };
}

export async function getAgent(db: Kysely<Database>, id: string): Promise<AgentRecord> {
  const row = await db.selectFrom('agents').select(['id', 'name', 'created_at', 'updated_at']).where('id', '=', id).executeTakeFirst();
  if (!row) throw new NotFoundError('agent');
  return present(row);
}
