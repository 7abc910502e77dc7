// Maintenance commands on a data directory (the server may be running: SQLite's WAL lets both work):
//   npm run cli -- import FILE [--entity ENTITY]      JSON with all entities, or a CSV of one entity
//   npm run cli -- keys create [--name NAME]          prints the new key (shown once)
//   npm run cli -- keys list
//   npm run cli -- keys revoke ID
// Each takes --data-dir DIR (default: $SHELF_AUDIT_DATA_DIR, else the per-user data directory).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { defaultDataDir } from '../server/config.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../server/domain/api-keys.js';
import { NotFoundError, RejectedError } from '../server/domain/errors.js';
import { parseCsvImport, parseJsonImport } from '../server/domain/import-files.js';
import { importMasterData } from '../server/domain/import.js';
import { openDatabase } from '../server/storage/database.js';
import { write } from '../server/storage/transaction.js';

const USAGE = `usage:
  cli import FILE [--entity ENTITY] [--data-dir DIR]
  cli keys create [--name NAME] [--data-dir DIR]
  cli keys list [--data-dir DIR]
  cli keys revoke ID [--data-dir DIR]`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      entity: { type: 'string' },
      name: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  const [command, sub, arg] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  const database = await openDatabase(values['data-dir'] ?? defaultDataDir());
  try {
    const db = database.db;
    if (command === 'import') {
      if (!sub) throw new UsageError('import needs a FILE');
      const text = readFileSync(sub, 'utf8');
      const isCsv = values.entity !== undefined || sub.toLowerCase().endsWith('.csv');
      if (isCsv && !values.entity) throw new UsageError('a CSV import needs --entity (sku, brands, ...)');
      const doc = isCsv ? parseCsvImport(text, values.entity!) : parseJsonImport(text);
      const summary = await importMasterData(db, doc, sub);
      console.log(JSON.stringify(summary, null, 2));
      return 0;
    }
    if (command === 'keys') {
      if (sub === 'create') {
        const key = await write(db, (ctx) => createApiKey(ctx, { name: values.name ?? null }));
        console.log(`id:  ${key.id}\nkey: ${key.key}\n(the key is shown only now; store it safely)`);
        return 0;
      }
      if (sub === 'list') {
        const keys = await listApiKeys(db);
        for (const k of keys) {
          console.log([k.id, k.prefix + '…', k.name ?? '-', k.created_date, k.revoked_date ? `revoked ${k.revoked_date}` : 'active'].join('\t'));
        }
        if (keys.length === 0) console.log('no keys');
        return 0;
      }
      if (sub === 'revoke') {
        if (!arg) throw new UsageError('keys revoke needs an ID (see keys list)');
        const key = await write(db, (ctx) => revokeApiKey(ctx, arg));
        console.log(`revoked ${key.id} (${key.prefix}…)`);
        return 0;
      }
    }
    throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) console.error(`${error.message}\n${USAGE}`);
    else if (error instanceof RejectedError) console.error(JSON.stringify(error.report, null, 2));
    else if (error instanceof NotFoundError) console.error(error.message);
    else if (error instanceof TypeError && (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) console.error(`${error.message}\n${USAGE}`);
    else console.error(error instanceof Error ? error.message : error);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
