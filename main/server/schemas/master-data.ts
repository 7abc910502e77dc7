// Displays, planograms, planogram records, must-have lists (MHL) and MHL records (v1.5).
import { Type } from 'typebox';
import { Id, Name, Nullable, Ref } from './common.js';

const choiceNote = 'Set it to choose one (null: back to the default, the newest one whose `display` is this display); reads give the one in use';
export const DisplayItem = Type.Object({
  id: Type.String(),
  name: Type.String(),
  planogram: Nullable(Type.String({ description: `The display's current planogram, scored by PLANOGRAM_COMPLIANCE. ${choiceNote}` })),
  musthavelist: Nullable(Type.String({ description: `The display's current must-have list, scored by MHL_COMPLIANCE. ${choiceNote}` })),
});
const displayChoice = {
  planogram: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, description: `Planogram id. ${choiceNote}` }))),
  musthavelist: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 255, description: `Must-have list id. ${choiceNote}` }))),
};
export const DisplayCreate = Type.Object({ id: Type.Optional(Id), name: Name, ...displayChoice });
export const DisplayUpdate = Type.Object({ id: Type.Optional(Id), name: Type.Optional(Name), ...displayChoice });
/** Import rows: displays come before the planograms and MHLs that name them, so no choice there. */
export const DisplayImport = Type.Object({ id: Type.Optional(Id), name: Name });

/** Planograms and MHLs have the same shape: {id, name, display}. */
export const DisplayBoundItem = Type.Object({ id: Type.String(), name: Type.String(), display: Nullable(Type.String()) });
export const DisplayBoundCreate = Type.Object({ id: Type.Optional(Id), name: Name, display: Type.Optional(Nullable(Ref)) });
export const DisplayBoundUpdate = Type.Object({
  id: Type.Optional(Id),
  name: Type.Optional(Name),
  display: Type.Optional(Nullable(Ref)),
});
/** GET /mhl/{id}/ adds `musthavelist`, the MHL's id, as the interface shows. */
export const MhlDetail = Type.Object({ ...DisplayBoundItem.properties, musthavelist: Type.String() });

const Index = Type.Integer({ minimum: 0, maximum: 100_000 });
const Facings = Type.Integer({ minimum: 1, maximum: 10_000 });
const Dimension = Nullable(Type.Integer({ minimum: 0, maximum: 1_000_000 }));

export const PlanogramRecordItem = Type.Object({
  id: Type.String(),
  rack_index: Type.Integer(),
  shelf_index: Type.Integer(),
  product_index: Type.Integer(),
  facing_x: Type.Integer(),
  facing_y: Type.Integer(),
  width: Nullable(Type.Integer()),
  height: Nullable(Type.Integer()),
  planogram: Type.String(),
  sku: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
const planogramRecordFields = {
  id: Type.Optional(Id),
  facing_x: Type.Optional(Facings),
  facing_y: Type.Optional(Facings),
  width: Type.Optional(Dimension),
  height: Type.Optional(Dimension),
};
/** planogram, sku and the three indexes are required on create: a record without them places nothing. */
export const PlanogramRecordCreate = Type.Object({
  ...planogramRecordFields,
  rack_index: Index,
  shelf_index: Index,
  product_index: Index,
  planogram: Ref,
  sku: Ref,
});
export const PlanogramRecordUpdate = Type.Object({
  ...planogramRecordFields,
  rack_index: Type.Optional(Index),
  shelf_index: Type.Optional(Index),
  product_index: Type.Optional(Index),
  planogram: Type.Optional(Ref),
  sku: Type.Optional(Ref),
});

// Spelt out, not generated, so that the record's Static type names each field.
const Alternative = Nullable(Type.String());
const alternatives = { sku1: Alternative, sku2: Alternative, sku3: Alternative, sku4: Alternative, sku5: Alternative, sku6: Alternative };
const AlternativeInput = Type.Optional(Nullable(Ref));
const alternativeInputs = {
  sku1: AlternativeInput, sku2: AlternativeInput, sku3: AlternativeInput, sku4: AlternativeInput, sku5: AlternativeInput, sku6: AlternativeInput,
};
export const MhlRecordItem = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  musthavelist: Type.String(),
  sku: Type.String(),
  ...alternatives,
});
export const MhlRecordCreate = Type.Object({
  id: Type.Optional(Id),
  name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  musthavelist: Ref,
  sku: Ref,
  ...alternativeInputs,
});
export const MhlRecordUpdate = Type.Object({
  id: Type.Optional(Id),
  name: Type.Optional(Nullable(Type.String({ maxLength: 255 }))),
  musthavelist: Type.Optional(Ref),
  sku: Type.Optional(Ref),
  ...alternativeInputs,
});
