// The app's own endpoints (/api/app/v1/): API keys, instance information and agents.
import { Type } from 'typebox';
import { Nullable } from './common.js';

const ROLE_TEXT = 'admin: everything (keys, devices, import, the APIs); integration: the APIs, reads and writes; read-only: GET/HEAD/OPTIONS of the APIs';
const ApiKeyRole = (description = ROLE_TEXT) =>
  Type.Union([Type.Literal('admin'), Type.Literal('integration'), Type.Literal('read-only')], { description });

export const ApiKeyItem = Type.Object({
  id: Type.String(),
  public_id: Type.String({ description: 'The key\'s public part (`sa_...` before its dot), to tell keys apart; no part of the secret. Keys of another form get a random `key_...`' }),
  name: Nullable(Type.String()),
  role: ApiKeyRole(),
  created_by: Nullable(Type.String({ description: 'The id of the key that created this one through the API; null for the CLI, `serve --api-key`, the app' })),
  created_date: Type.String({ format: 'date-time' }),
  last_used_date: Nullable(Type.String({ format: 'date-time' })),
  revoked_date: Nullable(Type.String({ format: 'date-time' })),
});
export const ApiKeyCreated = Type.Object({
  ...ApiKeyItem.properties,
  key: Type.String({ description: 'The key itself (`sa_<public id>.<secret>`): shown this once, only its SHA-256 is stored' }),
});
/** A key as the list shows it: which one is asking is marked, so a screen can warn before revoking it. */
export const ApiKeyListItem = Type.Object({
  ...ApiKeyItem.properties,
  current: Type.Boolean({ description: 'Whether this key made the request' }),
});
export const ApiKeyCreate = Type.Object({
  name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  role: Type.Optional(ApiKeyRole(`${ROLE_TEXT}. Default integration; not above the role of the key that asks`)),
});

export const Info = Type.Object({
  app_version: Type.String(),
  model_version: Nullable(Type.String()),
  embedder_version: Nullable(Type.String({ description: 'The product embedder used to identify SKUs (file name and SHA-256 prefix)' })),
  tag_model_version: Nullable(Type.String({ description: 'The price-tag detector (file name and SHA-256 prefix): an installed one, else the shipped one' })),
  data_dir: Type.String(),
  database: Type.String(),
  node_version: Type.String(),
});

export const AgentItem = Type.Object({
  id: Type.String({ description: 'The agent client id sent as metadata.agent_id to /recognize' }),
  name: Nullable(Type.String({ description: 'The latest metadata.agent_name sent with this agent_id; null if none was' })),
  created_date: Type.String({ format: 'date-time' }),
  updated_date: Type.String({ format: 'date-time' }),
});
