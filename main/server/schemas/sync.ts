// Sync protocol and device records (docs/sync.md). The laptop and the central validate with these;
// the renderer takes its types from them (renderer/src/api/sync.ts).
import { Type, type Static } from 'typebox';
import { SYNC_ENTITY_NAMES, type SyncEntityName } from '../storage/sync-registry.js';
import { DateTime, Nullable } from './common.js';

/** Bumped when push/pull change incompatibly; the central refuses older clients with 426. */
export const SYNC_PROTOCOL_VERSION = 1;
export const PROTOCOL_HEADER = 'x-sync-protocol';

export const DeviceRole = Type.Union([Type.Literal('auditor'), Type.Literal('supervisor')]);
export const DeviceCreate = Type.Object({ name: Type.String({ minLength: 1, maxLength: 255 }), role: DeviceRole }, { additionalProperties: false });
export const DeviceItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  role: DeviceRole,
  prefix: Type.String(),
  created_date: DateTime,
  revoked_date: Nullable(DateTime),
  last_seen_date: Nullable(DateTime),
  last_change: Type.Integer(),
});
export const DeviceCreated = Type.Intersect([DeviceItem, Type.Object({ key: Type.String({ description: 'The device key: shown once, never stored' }) })]);

const Row = Type.Record(Type.String({ maxLength: 64 }), Type.Unknown());
/** One of the registry's entities (storage/sync-registry.ts); which of them a device may push, push.ts checks. */
const Entity = Type.Unsafe<SyncEntityName>({ type: 'string', enum: [...SYNC_ENTITY_NAMES] });
const RecordId = Type.String({ minLength: 1, maxLength: 255 });

export const PushChange = Type.Object(
  {
    /** The device's change number (its outbox seq), increasing. */
    n: Type.Integer({ minimum: 1 }),
    entity: Entity,
    id: RecordId,
    op: Type.Union([Type.Literal('upsert'), Type.Literal('delete')]),
    row: Nullable(Row),
  },
  { additionalProperties: false },
);

export const PushRequest = Type.Object(
  {
    /** The device's clock when it sent the push (ISO), checked against the central's. */
    client_time: DateTime,
    /** Every change numbered up to and including `last` is in this push or was sent before. */
    last: Type.Integer({ minimum: 0 }),
    changes: Type.Array(PushChange, { maxItems: 1000 }),
  },
  { additionalProperties: false },
);

export const Rejection = Type.Object({
  change_number: Type.Integer(),
  entity: Type.String(),
  record_id: Type.String(),
  reason: Type.String(),
  created_date: DateTime,
});

export const PushResponse = Type.Object({
  /** The device's highest change number now applied on the central. */
  last_change: Type.Integer(),
  applied: Type.Integer(),
  rejections: Type.Array(Rejection),
});

export const PullQuery = Type.Object({
  cursor: Type.Optional(
    Type.String({
      // Opaque to the laptop: "0" at first, then what the previous pull answered (sync/central/pull.ts parseCursor).
      pattern: '^(0|s:[0-9]{1,18}|x:[0-9]{1,20}:([0-9]{1,20}(,[0-9]{1,20})*)?)$',
      maxLength: 4000,
      description: 'The cursor from the previous pull ("0" at first); opaque',
    }),
  ),
  client_time: DateTime,
});

export const PullChange = Type.Object({
  entity: Entity,
  id: Type.String(),
  op: Type.Union([Type.Literal('upsert'), Type.Literal('delete')]),
  row: Nullable(Row),
});

export const PullResponse = Type.Object({
  cursor: Type.String(),
  /** True when more changes wait past `cursor`: pull again. */
  more: Type.Boolean(),
  changes: Type.Array(PullChange),
  /** The pulling device's role, so a laptop knows whether it is a supervisor's (its app then opens on the overview). */
  device_role: Type.Optional(DeviceRole),
});

export const SyncSettingsBody = Type.Object(
  {
    central_url: Nullable(Type.String({ maxLength: 2048, pattern: '^https?://' })),
    device_key: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255 }))),
  },
  { additionalProperties: false },
);

export const SyncSettings = Type.Object({
  central_url: Nullable(Type.String()),
  /** Whether a device key is stored (the key itself is never sent back). */
  device_key_set: Type.Boolean(),
});

export const SyncState = Type.Union([
  Type.Literal('not_configured'),
  Type.Literal('central'),
  Type.Literal('idle'),
  Type.Literal('syncing'),
  Type.Literal('offline'),
  Type.Literal('revoked'),
  Type.Literal('clock_skew'),
  Type.Literal('outdated'),
  Type.Literal('error'),
]);

export const SyncStatus = Type.Object({
  state: SyncState,
  /** A sentence for people: what the state means and what to do. */
  message: Type.String(),
  central_url: Nullable(Type.String()),
  pending_records: Type.Integer(),
  pending_photos: Type.Integer(),
  pending_photo_bytes: Type.Integer(),
  /** 0..1 while photos go up, else null. */
  progress: Nullable(Type.Number()),
  last_success: Nullable(DateTime),
  last_error: Nullable(Type.String()),
  last_attempt: Nullable(DateTime),
  next_attempt: Nullable(DateTime),
  rejections: Type.Array(Type.Intersect([Rejection, Type.Object({ device: Nullable(Type.String()) })])),
  /** This laptop's device role as the central last said (null before its first pull, and on the central). */
  device_role: Type.Unsafe<Static<typeof DeviceRole> | null>({ type: ['string', 'null'], enum: ['auditor', 'supervisor', null] }),
});

export type SyncStatusBody = Static<typeof SyncStatus>;
export type PushRequestBody = Static<typeof PushRequest>;
export type PushResponseBody = Static<typeof PushResponse>;
export type PullResponseBody = Static<typeof PullResponse>;
export type SyncStateName = Static<typeof SyncState>;

/** Where photos go up, over tus (sync/central/photos.ts); not in the OpenAPI description: tus describes it. */
export const PHOTO_UPLOAD_PATH = '/api/app/v1/sync/photos/files';

/** A photo's blob key: `ab/<sha256>.<ext>`, as an upload row's `file` names it. */
export const PhotoKey = Type.String({ pattern: '^[0-9a-f]{2}/[0-9a-f]{64}\\.(jpg|png|webp)$', maxLength: 80 });
export const PhotosMissingRequest = Type.Object({ files: Type.Array(PhotoKey, { maxItems: 500 }) }, { additionalProperties: false });
export const PhotosMissingResponse = Type.Object({ missing: Type.Array(Type.String(), { description: 'The keys the central does not hold yet: send those' }) });
export const PhotoContentParams = Type.Object({ file: Type.String({ pattern: '^[0-9a-f]{64}\\.(jpg|png|webp)$', maxLength: 80 }) });

/** A model the central offers (recognition/model-store.ts): laptops pull it when its checksum differs. */
export const OfferedModel = Type.Object({ version: Type.String(), sha256: Type.String(), bytes: Type.Integer() });
export const OfferedModels = Type.Object({
  detector: Nullable(OfferedModel),
  embedder: Nullable(OfferedModel),
  // Optional: a central from before the tag model was in the store offers none, and laptops keep their own.
  tags: Type.Optional(Nullable(OfferedModel)),
});
export const ModelContentParams = Type.Object({ kind: Type.Union([Type.Literal('detector'), Type.Literal('embedder'), Type.Literal('tags')]), sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }) });
export type OfferedModelsBody = Static<typeof OfferedModels>;
