// Schemas of the review endpoints: a scene's annotations per photo, their replacement
// guarded by a version, and the audit of corrections. Boxes use the REALOGRAM convention: x, y the
// box centre, w, h its size, in the photo's displayed pixels.
import { Type, type Static } from 'typebox';
import { Id, Nullable, Ref } from './common.js';

const Coordinate = Type.Number({ description: 'pixels of the photo as displayed (EXIF orientation applied)' });

const Suggestion = Type.Object({ sku_id: Type.String(), score: Type.Number({ description: 'identification score, 0..1' }) });

export const AnnotationBoxInput = Type.Object({
  id: Type.Optional(Id),
  x: Coordinate,
  y: Coordinate,
  w: Coordinate,
  h: Coordinate,
  sku_id: Nullable(Ref),
  unknown_on_purpose: Type.Optional(Type.Boolean({ description: 'the reviewer confirms the product is not in the catalog' })),
});

export const AnnotationBox = Type.Object({
  id: Type.String(),
  x: Type.Number(),
  y: Type.Number(),
  w: Type.Number(),
  h: Type.Number(),
  sku_id: Nullable(Type.String()),
  score: Type.Number({ description: 'detector confidence; 1 for a box a reviewer drew' }),
  sku_score: Type.Number({ description: 'identification confidence; 1 for an SKU a reviewer chose' }),
  source: Type.Union([Type.Literal('model'), Type.Literal('reviewer')]),
  unknown_on_purpose: Type.Boolean(),
  suggestions: Type.Optional(Type.Array(Suggestion, { description: "the identifier's best SKUs for this crop, best first; absent for a box drawn or moved by a reviewer (ask /suggestions/)" })),
});

export const SuggestionsBody = Type.Object(
  {
    image: Ref,
    x: Coordinate,
    y: Coordinate,
    w: Type.Number({ exclusiveMinimum: 0 }),
    h: Type.Number({ exclusiveMinimum: 0 }),
  },
  { description: 'A box (REALOGRAM convention) on one photo of the scene' },
);
export const SuggestionsAnswer = Type.Object({ suggestions: Type.Array(Suggestion) });

export const ImageAnnotations = Type.Object({
  image: Type.String({ description: 'upload id' }),
  width: Type.Integer(),
  height: Type.Integer(),
  version: Type.Integer({ description: '0 until a reviewer saves this photo; send it back with the corrections' }),
  reviewer: Nullable(Type.String()),
  reviewed_date: Nullable(Type.String()),
  boxes: Type.Array(AnnotationBox),
});

const BoxRef = Type.Object({ image: Type.String({ description: 'upload id' }), box: Type.String({ description: "the box's id in that photo" }) });

export const ReviewBayFacing = Type.Object({
  x: Type.Number({ description: 'centre, bay pixels' }),
  y: Type.Number(),
  w: Type.Number(),
  h: Type.Number(),
  sku_id: Nullable(Type.String({ description: 'the SKU the facing is counted as' })),
  counted: BoxRef,
  views: Type.Array(BoxRef, { description: 'every box of the photos that shows this facing, the counted one first' }),
});

export const ReviewBay = Type.Object(
  {
    width: Type.Integer(),
    height: Type.Integer(),
    photos: Type.Array(
      Type.Object({
        image: Type.String(),
        joined: Type.Boolean(),
        transform: Nullable(Type.Array(Type.Number(), { minItems: 9, maxItems: 9, description: 'photo pixels -> bay pixels, row-major 3x3' })),
        message: Nullable(Type.String({ description: 'why the photo could not be joined, in words' })),
      }),
    ),
    facings: Type.Array(ReviewBayFacing),
    passed: Type.Array(BoxRef, {
      description: "boxes no facing counts: cut by their photo's edge where another photo shows the place whole with no product (a box the reviewer changes counts again)",
    }),
  },
  { description: "The bay the scene's photos were joined into, its facings merged from the boxes as saved: a correction of a facing goes to each of its views" },
);
export type ReviewBay = Static<typeof ReviewBay>;

export const SceneAnnotations = Type.Object({
  scene: Type.String(),
  visit: Type.String(),
  reviewed: Type.Boolean({ description: 'every photo of the scene has been saved by a reviewer' }),
  images: Type.Array(ImageAnnotations),
  bay: Nullable(ReviewBay),
});

export const AnnotationsPutBody = Type.Object({
  images: Type.Array(
    Type.Object({
      image: Ref,
      version: Type.Integer({ minimum: 0, description: 'the version read' }),
      boxes: Type.Array(AnnotationBoxInput, { maxItems: 5000 }),
    }),
    { minItems: 1, maxItems: 100 },
  ),
});

export const AnnotationsSaved = Type.Object({
  ...SceneAnnotations.properties,
  reports: Type.Record(Type.String(), Type.String(), { description: 'report type -> id of the new report that recomputes it' }),
});

/**
 * 409: the photo was saved by someone else since it was read (`image`, current `version`), or the scene
 * has no recognition result yet. Nothing was changed.
 */
export const ReviewConflict = Type.Object(
  {
    detail: Type.String(),
    image: Type.Optional(Type.String()),
    version: Type.Optional(Type.Integer({ description: 'the current version' })),
  },
  { description: 'Stale version or scene not recognised yet: nothing was changed' },
);

export const CorrectionItem = Type.Object({
  id: Type.String(),
  scene: Type.String(),
  image: Type.String(),
  version: Type.Integer(),
  reviewer: Nullable(Type.String()),
  created_date: Type.String(),
  before: Type.Array(AnnotationBox),
  after: Type.Array(AnnotationBox),
});
