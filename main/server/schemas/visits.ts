// Visit (v1.5, section 2.5 of the interface).
import { Type } from 'typebox';
import { DateTime, Id, Nullable } from './common.js';

const Text = Nullable(Type.String({ maxLength: 255 }));
const Objects = Nullable(Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 10_000 }));

export const VisitItem = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  shop: Nullable(Type.String()),
  agent: Nullable(Type.String()),
  started_date: Nullable(Type.String({ format: 'date-time' })),
  task: Nullable(Type.String()),
  latitude: Nullable(Type.Number()),
  longitude: Nullable(Type.Number()),
  shop_name: Nullable(Type.String()),
  shop_area: Nullable(Type.String()),
  gps_shop: Nullable(Type.Array(Type.Object({}, { additionalProperties: true }))),
  images: Nullable(Type.Array(Type.Object({}, { additionalProperties: true }))),
  current_agent_name: Nullable(Type.String()),
  current_agent_route: Nullable(Type.String()),
  moderation: Nullable(Type.String()),
  results: Nullable(Type.Array(Type.Object({}, { additionalProperties: true }))),
  helpdesk: Nullable(Type.String()),
  is_new: Type.Boolean({ description: "Read-only: the Data API's flag (new until acknowledged, new again after any update)" }),
});

/** Every field optional on create and update alike, as the interface lists them. */
export const VisitInput = Type.Object({
  id: Type.Optional(Id),
  name: Type.Optional(Text),
  shop: Type.Optional(Text),
  agent: Type.Optional(Text),
  started_date: Type.Optional(Nullable(DateTime)),
  task: Type.Optional(Text),
  latitude: Type.Optional(Nullable(Type.Number({ minimum: -90, maximum: 90 }))),
  longitude: Type.Optional(Nullable(Type.Number({ minimum: -180, maximum: 180 }))),
  shop_name: Type.Optional(Text),
  shop_area: Type.Optional(Text),
  gps_shop: Type.Optional(Objects),
  images: Type.Optional(Objects),
  current_agent_name: Type.Optional(Text),
  current_agent_route: Type.Optional(Text),
  moderation: Type.Optional(Text),
  results: Type.Optional(Objects),
  helpdesk: Type.Optional(Text),
});
