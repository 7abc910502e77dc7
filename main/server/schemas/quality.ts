// Schemas of photo quality: the quality of a photo (on uploads, /recognize and the visit's quality),
// and the thresholds setting (GET/PATCH /api/app/v1/photo_quality/settings/).
import { Type, type Static, type TSchema } from 'typebox';
import { Nullable } from './common.js';

/** Each threshold's accepted range; the checks (domain/photo-checks.ts) hold the defaults. */
export const QUALITY_THRESHOLD_RANGES = {
  min_sharpness: { minimum: 0, maximum: 5000, description: 'Least variance of the second derivative (weaker of x and y) at 1024 px (blur)' },
  min_brightness: { minimum: 0, maximum: 255, description: 'Least mean luma, 0-255 (too dark)' },
  max_brightness: { minimum: 0, maximum: 255, description: 'Greatest mean luma, 0-255 (too bright)' },
  max_clipped: { minimum: 0, maximum: 1, description: 'Greatest share of pixels at luma >= 250 (clipped highlights)' },
  max_glare: { minimum: 0, maximum: 1, description: 'Greatest bright colourless patch, share of the photo (glare)' },
  max_tilt: { minimum: 0, maximum: 45, description: 'Greatest angle of the shelf edges, degrees' },
  max_convergence: { minimum: 0, maximum: 45, description: 'Greatest angle between top and bottom shelf edges, degrees (perspective)' },
  min_product_size: { minimum: 0, maximum: 1, description: 'Least median product size (square root of the box area over that of the photo) (too far)' },
  max_product_height: { minimum: 0, maximum: 1, description: 'Greatest median product height, share of the photo height (too close)' },
  max_cut_products: { minimum: 0, maximum: 1, description: 'Greatest share of products cut by the top or bottom edge (too close)' },
  min_edge_room: { minimum: 0, maximum: 20, description: 'Least room above or below the products, in product heights (too close: products run into the top and the bottom)' },
  max_side_cut: { minimum: 0, maximum: 1, description: 'Greatest share of shelves cut by the bay-end side of the photo' },
  min_side_room: { minimum: 0, maximum: 20, description: 'Least room beside the products at a bay-end side, in product widths (bay end cut)' },
  max_duplicate_distance: { minimum: 0, maximum: 64, description: 'Bits of the perceptual hash under which two photos are the same' },
  min_overlap: { minimum: 0, maximum: 1, description: 'Least overlap with the previous photo of a scene' },
  max_overlap: { minimum: 0, maximum: 1, description: 'Greatest overlap with the previous photo of a scene' },
};
type ThresholdName = keyof typeof QUALITY_THRESHOLD_RANGES;
const names = Object.keys(QUALITY_THRESHOLD_RANGES) as ThresholdName[];

function thresholdProps<T extends TSchema>(wrap: (s: ReturnType<typeof Type.Number>) => T): Record<ThresholdName, T> {
  return Object.fromEntries(names.map((n) => [n, wrap(Type.Number(QUALITY_THRESHOLD_RANGES[n]))])) as Record<ThresholdName, T>;
}

export const QualityThresholds = Type.Object(thresholdProps((s) => s));
export const QualityThresholdsPatch = Type.Object(thresholdProps((s) => Type.Optional(s)));
export type QualityThresholdsPatch = Static<typeof QualityThresholdsPatch>;

/** Every issue a check can raise (domain/photo-checks.ts). */
export const ISSUE_CODES = [
  'not_checked',
  'too_small',
  'blur',
  'too_dark',
  'too_bright',
  'clipped_highlights',
  'glare',
  'tilt',
  'perspective',
  'no_products',
  'too_far',
  'too_close',
  'bay_end_cut',
  'duplicate',
  'overlap_low',
  'overlap_high',
] as const;

export const QualityIssue = Type.Object({
  code: Type.Unsafe<(typeof ISSUE_CODES)[number]>({ type: 'string', enum: [...ISSUE_CODES], description: 'Which check raised it' }),
  severity: Type.Union([Type.Literal('retake'), Type.Literal('check')], { description: 'retake: the photo cannot give a usable result; check: it may, but look' }),
  value: Type.Union([Type.Number(), Type.String()], { description: 'What was measured' }),
  threshold: Nullable(Type.Number({ description: 'What it was compared with' })),
  message: Type.String({ description: 'What the auditor should do, in words' }),
});
export const PhotoQuality = Type.Object({
  ok: Type.Boolean({ description: 'True when no check found an issue' }),
  mark: Type.Union([Type.Literal('fine'), Type.Literal('check'), Type.Literal('retake')]),
  issues: Type.Array(QualityIssue),
});
export const ScenePhotoQuality = Type.Object({
  image: Type.String({ description: 'Upload id' }),
  detection_checked: Type.Boolean({ description: 'True once distance and coverage (from the detector) are included' }),
  ...PhotoQuality.properties,
});
export const SceneQuality = Type.Object({ scene: Type.String(), photos: Type.Array(ScenePhotoQuality) });
export const VisitQuality = Type.Object({
  visit: Type.String(),
  mark: Type.Union([Type.Literal('fine'), Type.Literal('check'), Type.Literal('retake')], { description: 'The worst mark of its photos' }),
  scenes: Type.Array(SceneQuality),
});
export const VisitQualityQuery = Type.Object({
  visit: Type.String({ minLength: 1, maxLength: 255, description: 'Visit id' }),
  scene: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Only this scene of the visit' })),
});
export const VisitMarksQuery = Type.Object({
  visit__in: Type.String({ minLength: 1, maxLength: 30_000, description: 'Visit ids, comma-separated (at most 100)' }),
});
export const VisitMarks = Type.Array(Type.Object({ visit: Type.String(), mark: Type.Union([Type.Literal('fine'), Type.Literal('check'), Type.Literal('retake')]) }), {
  description: 'Visits that exist, with the worst mark of their photos',
});
const Mark = Type.Union([Type.Literal('fine'), Type.Literal('check'), Type.Literal('retake')]);
export const VisitsByMarkQuery = Type.Object({ mark: Type.Union([Type.Literal('fine'), Type.Literal('check'), Type.Literal('retake')], { description: 'The worst mark of a visit\'s photos' }) });
export const VisitsByMark = Type.Object({
  mark: Mark,
  visits: Type.Array(Type.String(), { description: 'Ids of the visits (of the latest 500 with photos) whose worst photo mark is `mark`, latest first' }),
});
