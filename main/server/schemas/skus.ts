// SKU (v1.5). References are ids of existing brands / categories / manufacturers.
import { Type } from 'typebox';
import { Id, Name, Nullable, Ref } from './common.js';

const Size = Nullable(Type.Number({ minimum: 0, maximum: 100_000 }));
const Attributes = Nullable(Type.Record(Type.String(), Type.String({ maxLength: 1000 })));

export const SkuItem = Type.Object({
  id: Type.String(),
  cid: Nullable(Type.String()),
  ean13: Nullable(Type.String()),
  image: Nullable(Type.String()),
  name: Type.String(),
  brand: Nullable(Type.String()),
  category: Nullable(Type.String()),
  manufacturer: Nullable(Type.String()),
  size_x_mm: Nullable(Type.Number()),
  size_y_mm: Nullable(Type.Number()),
  size_z_mm: Nullable(Type.Number()),
  attributes: Attributes,
});

const fields = {
  id: Type.Optional(Id),
  cid: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  ean13: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  image: Type.Optional(Nullable(Type.String({ maxLength: 2048 }))),
  brand: Type.Optional(Nullable(Ref)),
  category: Type.Optional(Nullable(Ref)),
  manufacturer: Type.Optional(Nullable(Ref)),
  size_x_mm: Type.Optional(Size),
  size_y_mm: Type.Optional(Size),
  size_z_mm: Type.Optional(Size),
  attributes: Type.Optional(Attributes),
};

export const SkuCreate = Type.Object({ ...fields, name: Name });
export const SkuUpdate = Type.Object({ ...fields, name: Type.Optional(Name) });
