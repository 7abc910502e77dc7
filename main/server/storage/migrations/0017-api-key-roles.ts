// API keys get a public id (listed in clear, no part of the secret), a role, and the key that created
// them with the root of that chain (the /recognize rate limit is counted per root, so minting keys
// does not multiply it). The clear 10-character prefix of every key is dropped. Keys made before this
// were all-powerful: they become admin keys, each its own root, with a random public id.
import { randomBytes } from 'node:crypto';
import { type Kysely, type Migration } from 'kysely';

export const apiKeyRoles: Migration = {
  async up(db: Kysely<any>) {
    // SQLite adds a NOT NULL column only with a default: the least privilege, so that an insert that
    // forgot the role can do nothing; the keys already there are set to admin just below.
    await db.schema.alterTable('api_keys').addColumn('role', 'varchar(16)', (c) => c.notNull().defaultTo('read-only')).execute();
    await db.schema.alterTable('api_keys').addColumn('public_id', 'varchar(64)', (c) => c.notNull().defaultTo('')).execute();
    await db.schema.alterTable('api_keys').addColumn('created_by', 'varchar(255)').execute();
    await db.schema.alterTable('api_keys').addColumn('root_key_id', 'varchar(255)', (c) => c.notNull().defaultTo('')).execute();
    const rows = await db.selectFrom('api_keys').select('id').execute();
    for (const { id } of rows as Array<{ id: string }>) {
      await db
        .updateTable('api_keys')
        .set({ role: 'admin', public_id: `key_${randomBytes(8).toString('hex')}`, root_key_id: id })
        .where('id', '=', id)
        .execute();
    }
    await db.schema.createIndex('api_keys_public_id').unique().on('api_keys').column('public_id').execute();
    await db.schema.alterTable('api_keys').dropColumn('prefix').execute();
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
