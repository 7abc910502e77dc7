// The app's own endpoints (/api/app/v1/): API keys, instance information and agents.
import { Type } from 'typebox';
import { Nullable } from './common.js';

export const ApiKeyItem = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  prefix: Type.String({ description: 'First characters of the key, to tell keys apart' }),
  created_date: Type.String({ format: 'date-time' }),
  last_used_date: Nullable(Type.String({ format: 'date-time' })),
  revoked_date: Nullable(Type.String({ format: 'date-time' })),
});
export const ApiKeyCreated = Type.Object({
  ...ApiKeyItem.properties,
  key: Type.String({ description: 'The key itself: shown this once, only its SHA-256 is stored' }),
});
export const ApiKeyCreate = Type.Object({ name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))) });

export const Info = Type.Object({
  app_version: Type.String(),
  model_version: Nullable(Type.String()),
  embedder_version: Nullable(Type.String({ description: 'The product embedder used to identify SKUs (file name and SHA-256 prefix)' })),
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
