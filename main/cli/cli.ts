// Maintenance commands on a data directory (the server may be running: SQLite's WAL lets both work):
//   npm run cli -- import FILE [--entity ENTITY]      JSON with all entities, or a CSV of one entity
//   npm run cli -- keys create [--name NAME] [--role admin|integration|read-only]   prints the new key (shown once)
//   npm run cli -- keys list
//   npm run cli -- keys revoke ID
//   npm run cli -- devices create --name N --role auditor|supervisor   (on the central: prints the device key once)
//   npm run cli -- devices list | devices revoke ID
//   npm run cli -- export-training --out DIR [--since DATE]   reviewed scenes as COCO + SKU crops (docs/recognition.md, "Review")
//   npm run cli -- models install FILE [--kind detector|embedder|tags] [--version V] | models list | models rollback [--kind K]   (docs/sync.md, "Models")
//   npm run cli -- bucket migrate [--remove]   a central's photos and models into its S3 bucket (SHELF_AUDIT_S3_*; docs/sync.md, "Scaling out")
// Each takes --data-dir DIR, or --database postgres://... for a central on PostgreSQL (default: $SHELF_AUDIT_DATA_DIR, else the per-user data directory).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { defaultDataDir, objectStoreSettings } from '../server/config/config.js';
import { ObjectStore } from '../server/storage/object-store.js';
import { migrateToBucket, publishModels } from '../server/sync/central/bucket.js';
import { ROLES, createApiKey, isRole, listApiKeys, revokeApiKey } from '../server/domain/api-keys.js';
import { NotFoundError, RejectedError } from '../server/domain/errors.js';
import { parseCsvImport, parseJsonImport } from '../server/domain/import-files.js';
import { importMasterData } from '../server/domain/import.js';
import { openDatabase, openDatabaseTarget } from '../server/storage/database.js';
import type { Database } from '../server/storage/schema.js';
import type { Kysely } from 'kysely';
import { createDevice, listDevices, revokeDevice } from '../server/domain/devices.js';
import { write } from '../server/storage/transaction.js';
import { exportTraining } from '../server/scenes/training-export.js';
import { MODEL_KINDS, ModelError, installModel, isModelKind, readModelChoice, rollbackModel, type ModelKind } from '../server/recognition/model-store.js';

/** The central's bucket when SHELF_AUDIT_S3_BUCKET is set, for the commands that write to it. */
async function bucketFromEnv(): Promise<ObjectStore | null> {
  const settings = objectStoreSettings();
  return settings ? ObjectStore.open(settings) : null;
}

/** A central with a bucket offers what the bucket's offer names: published after each change. */
async function publishIfBucket(dataDir: string): Promise<void> {
  const objects = await bucketFromEnv();
  if (!objects) return;
  try {
    const offer = await publishModels(dataDir, objects);
    console.log(`published to the bucket ${objects.bucket}: detector ${offer.detector?.version ?? 'none'}, embedder ${offer.embedder?.version ?? 'none'}`);
  } finally {
    objects.destroy();
  }
}

async function bucketCommand(dataDir: string, sub: string | undefined, remove: boolean): Promise<number> {
  if (sub !== 'migrate') throw new UsageError(`unknown command: bucket ${sub ?? ''}`);
  const objects = await bucketFromEnv();
  if (!objects) throw new UsageError('bucket migrate needs the bucket\'s settings: SHELF_AUDIT_S3_BUCKET (and _ENDPOINT, _REGION; credentials in AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY or a shared credentials file)');
  try {
    const report = await migrateToBucket(dataDir, objects, { remove });
    console.log(JSON.stringify({ stored: report.stored.length, present: report.present.length, refused: report.refused, removed: report.removed.length }, null, 2));
    if (report.refused.length > 0) {
      console.error(`${report.refused.length} file(s) refused (see "refused" above): they stay on disk; nothing was removed for them.`);
      return 1;
    }
    return 0;
  } finally {
    objects.destroy();
  }
}

async function modelsCommand(dataDir: string, sub: string | undefined, file: string | undefined, version: string | undefined, kind: string): Promise<number> {
  if (!isModelKind(kind)) {
    console.error(`--kind takes ${Object.keys(MODEL_KINDS).join(' or ')}, not "${kind}"`);
    return 2;
  }
  try {
    if (sub === 'install' && file) {
      const m = await installModel(dataDir, file, { kind, version });
      console.log(`installed ${m.version} (sha256 ${m.sha256}); recognition uses it from its next job`);
      await publishIfBucket(dataDir);
      return 0;
    }
    if (sub === 'list') {
      for (const k of Object.keys(MODEL_KINDS) as ModelKind[]) {
        const { current, previous } = readModelChoice(dataDir, k);
        console.log(`${k}: current: ${current ? `${current.version} sha256:${current.sha256} (installed ${current.installed_at})` : 'the shipped model'}`);
        console.log(`${k}: previous: ${previous ? `${previous.version} sha256:${previous.sha256}` : current ? 'the shipped model' : 'none'}`);
      }
      return 0;
    }
    if (sub === 'rollback') {
      const { current } = await rollbackModel(dataDir, { kind });
      console.log(`rolled back; ${kind} in use now: ${current ? current.version : 'the shipped model'}`);
      await publishIfBucket(dataDir);
      return 0;
    }
  } catch (error) {
    if (error instanceof ModelError) {
      console.error(`models: ${error.message}`);
      return 1;
    }
    throw error;
  }
  console.error(USAGE);
  return 2;
}

const USAGE = `usage:
  cli import FILE [--entity ENTITY] [--data-dir DIR]
  cli keys create [--name NAME] [--role admin|integration|read-only] [--data-dir DIR]   (role default integration)
  cli keys list [--data-dir DIR]
  cli keys revoke ID [--data-dir DIR]
  cli devices create --name NAME --role auditor|supervisor [--data-dir DIR | --database URL]
  cli devices list [--data-dir DIR | --database URL]
  cli devices revoke ID [--data-dir DIR | --database URL]
  cli export-training --out DIR [--since DATE] [--data-dir DIR] [--database URL]
  cli models install FILE [--kind detector|embedder|tags] [--version V] [--data-dir DIR]   (checked, then used from the next recognition job on; kind default detector)
  cli models list [--data-dir DIR]
  cli models rollback [--kind detector|embedder|tags] [--data-dir DIR]
  cli bucket migrate [--remove] [--data-dir DIR]   (a central's photos and models into its bucket, SHELF_AUDIT_S3_*: resumable, each verified; --remove deletes the local photos verified there)`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      entity: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      database: { type: 'string' },
      out: { type: 'string' },
      since: { type: 'string' },
      version: { type: 'string' },
      kind: { type: 'string' },
      remove: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  const [command, sub, arg] = positionals;
  if (values.help || !command) {
    console.log(USAGE);
    return values.help ? 0 : 2;
  }
  // Models are files in the data folder (a central on PostgreSQL keeps them there too): no database.
  if (command === 'bucket') return bucketCommand(values['data-dir'] ?? defaultDataDir(), sub, values.remove ?? false);
  if (command === 'models') return modelsCommand(values['data-dir'] ?? defaultDataDir(), sub, arg, values.version, values.kind ?? 'detector');
  const database = values.database
    ? await openDatabaseTarget({ kind: 'postgres', connectionString: values.database })
    : await openDatabase(values['data-dir'] ?? defaultDataDir());
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
        const role = values.role ?? 'integration';
        if (!isRole(role)) throw new UsageError(`keys create takes --role ${ROLES.join(', ')}`);
        // The CLI runs with the data directory's owner's rights: its keys have no creator (each is its own rate-limit root).
        const key = await write(db, (ctx) => createApiKey(ctx, { name: values.name ?? null, role }));
        console.log(`id:  ${key.id}\nkey: ${key.key}\nrole: ${key.role}\n(the key is shown only now; store it safely)`);
        return 0;
      }
      if (sub === 'list') {
        const keys = await listApiKeys(db);
        for (const k of keys) {
          console.log([k.id, k.public_id, k.role, k.name ?? '-', k.created_date, k.revoked_date ? `revoked ${k.revoked_date}` : 'active'].join('\t'));
        }
        if (keys.length === 0) console.log('no keys');
        return 0;
      }
      if (sub === 'revoke') {
        if (!arg) throw new UsageError('keys revoke needs an ID (see keys list)');
        const key = await write(db, (ctx) => revokeApiKey(ctx, arg));
        console.log(`revoked ${key.id} (${key.public_id})`);
        return 0;
      }
    }
    if (command === 'devices') return await devicesCommand(db, sub, arg, values);
    if (command === 'export-training') {
      if (!values.out) throw new UsageError('export-training needs --out DIR');
      let since: string | undefined;
      if (values.since !== undefined) {
        const t = Date.parse(values.since);
        if (Number.isNaN(t)) throw new UsageError(`--since: not a date: ${values.since} (use YYYY-MM-DD or an ISO date-time)`);
        since = new Date(t).toISOString();
      }
      // Photos are files under the data directory; a central's that are only in its bucket are fetched into it.
      const bucket = await bucketFromEnv();
      try {
        const summary = await exportTraining(db, values['data-dir'] ?? defaultDataDir(), values.out, { since }, bucket);
        console.log(JSON.stringify(summary));
      } finally {
        bucket?.destroy();
      }
      return 0;
    }
    throw new UsageError(`unknown command: ${positionals.join(' ')}`);
  } finally {
    await database.close();
  }
}

async function devicesCommand(db: Kysely<Database>, sub: string | undefined, arg: string | undefined, values: { name?: string; role?: string }): Promise<number> {
  if (sub === 'create') {
    if (!values.name) throw new UsageError('devices create needs --name');
    if (values.role !== 'auditor' && values.role !== 'supervisor') throw new UsageError('devices create needs --role auditor or --role supervisor');
    const device = await write(db, (ctx) => createDevice(ctx, { name: values.name!, role: values.role as 'auditor' | 'supervisor' }));
    console.log(`id:  ${device.id}\nkey: ${device.key}\n(the key is shown only now: enter it on the laptop with --device-key or in Settings)`);
    return 0;
  }
  if (sub === 'list') {
    const devices = await listDevices(db);
    for (const d of devices) {
      console.log([d.id, d.prefix + '…', d.name, d.role, d.created_date, d.revoked_date ? `revoked ${d.revoked_date}` : 'active', `last change ${d.last_change}`].join('\t'));
    }
    if (devices.length === 0) console.log('no devices');
    return 0;
  }
  if (sub === 'revoke') {
    if (!arg) throw new UsageError('devices revoke needs an ID (see devices list)');
    const device = await write(db, (ctx) => revokeDevice(ctx, arg));
    console.log(`revoked ${device.id} (${device.name})`);
    return 0;
  }
  throw new UsageError(`unknown command: devices ${sub ?? ''}`);
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
