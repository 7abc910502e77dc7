// Building blocks shared by every resource's schemas: nullable values, ids, the list query and
// envelope, DRF error bodies and the constant results of writes.
import { Type, type Static, type TSchema } from 'typebox';
import { DEFAULT_PAGE_SIZE, MAX_OFFSET, MAX_PAGE_SIZE } from '../http/pagination.js';

/**
 * `type: [T, "null"]` rather than anyOf: AJV's type coercion (needed for form bodies) would turn null
 * into "" inside an anyOf's string branch.
 */
export function Nullable<T extends TSchema>(schema: T) {
  const s = schema as unknown as Record<string, unknown>;
  return Type.Unsafe<Static<T> | null>({ ...s, type: [s.type, 'null'] });
}

/** The longest record id, in characters: the schemas and the router (app.ts) both follow it. */
export const ID_MAX_LENGTH = 255;
/**
 * The router measures a path segment percent-encoded: a character takes up to 12 characters there
 * (4 UTF-8 bytes, each as %XX).
 */
export const ID_MAX_ENCODED_LENGTH = ID_MAX_LENGTH * 12;

/** The v1.5 record id: any non-blank string up to 255 characters (client-chosen or uuidv7). */
export const Id = Type.String({ minLength: 1, maxLength: ID_MAX_LENGTH, description: 'Record id (client-chosen or UUIDv7)' });
/** A reference: the id of an existing record (checked, `Invalid pk "X" - object does not exist.`). */
export const Ref = Type.String({ minLength: 1, maxLength: ID_MAX_LENGTH });
export const Name = Type.String({ minLength: 1, maxLength: 255 });
export const DateTime = Type.String({ format: 'date-time' });

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: ID_MAX_LENGTH }) });
/** Data API path ids are the per-instance integer `data_id`. */
export const DataIdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }) });

export const PageQueryProperties = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, description: `Page size, default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}` }),
  ),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_OFFSET, description: 'Index of the first result, default 0' })),
};
export const PageQuery = Type.Object(PageQueryProperties);

export function Envelope<T extends TSchema>(item: T) {
  return Type.Object({
    count: Type.Integer(),
    next: Nullable(Type.String({ format: 'uri' })),
    previous: Nullable(Type.String({ format: 'uri' })),
    results: Type.Array(item),
  });
}

export const Detail = Type.Object({ detail: Type.String() }, { description: 'DRF error body' });
/**
 * DRF validation errors: field -> messages ("non_field_errors" for the whole body), or {"detail"} for
 * an unparsable body. Declared open so the response serializer passes every shape through.
 */
export const FieldErrors = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  description: 'DRF validation errors: {"field": ["message", ...]}, or {"detail": "..."}',
});
export const Created = Type.Object({ result: Type.Literal('CREATED'), id: Type.String() });
export const Ok = Type.Object({ result: Type.Literal('OK') });

/** Error responses every authenticated route may give, for the OpenAPI description. */
export const errorResponses = {
  400: FieldErrors,
  401: Detail,
  // An API key whose role does not allow the call (http/roles.ts).
  403: Detail,
  404: Detail,
  405: Detail,
  413: Detail,
  415: Detail,
  // The bucket or the database unreachable (Retry-After), bodies waiting too long to be read.
  503: Detail,
  // The disk full: nothing of the request was kept (storage/disk-full.ts).
  507: Detail,
};
