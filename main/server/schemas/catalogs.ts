// Brand, category and manufacturer (v1.5): {id, name}.
import { Type } from 'typebox';
import { Id, Name } from './common.js';

export const CatalogItem = Type.Object({ id: Type.String(), name: Type.String() });
/** Name is required on create: a nameless catalog entry is useless, and the Data API requires 1..255. */
export const CatalogCreate = Type.Object({ id: Type.Optional(Id), name: Name });
export const CatalogUpdate = Type.Object({ id: Type.Optional(Id), name: Type.Optional(Name) });
