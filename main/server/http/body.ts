// Request bodies as DRF takes them: JSON, urlencoded and multipart alike on every write (list fields
// repeat the key in form bodies), an empty body read as no fields, anything else 415.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ValidationError, messages } from '../domain/errors.js';
import { HttpError, detail } from './errors.js';
import { MAX_JSON_DEPTH, jsonNestsDeeperThan, refuseUnsafeValues } from './input-values.js';
import { registerMultipart } from './multipart.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

export const BODY_LIMIT = 1024 * 1024;

/** The content-type parsers, multipart included, and the checks on parsed bodies (preValidation, preHandler). */
export const bodyParsersPlugin = fp(
  async (app: FastifyInstance) => {
    // DRF has no text/plain parser: such bodies get 415, not a string that fails validation later.
    app.removeContentTypeParser('text/plain');
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (request, body, done) => {
      let text: string;
      try {
        // Invalid UTF-8 is refused, not silently replaced by U+FFFD and stored.
        text = utf8.decode(body as Buffer);
      } catch {
        return done(new HttpError(400, detail('JSON parse error - the body is not valid UTF-8.')), undefined);
      }
      if (text.trim() === '') return done(null, {});
      if (jsonNestsDeeperThan(text)) return done(new HttpError(400, detail(`JSON parse error - nested deeper than ${MAX_JSON_DEPTH} levels.`)), undefined);
      parseJson(request, text, done);
    });
    app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
      const fields = parseUrlencoded(body as Buffer);
      if (!fields) return done(new HttpError(400, detail('Form parse error - the body is not valid UTF-8.')), undefined);
      done(null, fields);
    });
    // Multipart: streamed, files to disk (multipart.ts); its text fields become `body`.
    await registerMultipart(app);
    app.addHook('preValidation', async (request) => rejectNulls(request));
    app.addHook('preHandler', refuseUnsafeValues);
  },
  // Multipart's temp files live under the data directory.
  { name: 'shelf-audit-body-parsers', decorators: { fastify: ['dataDir'] } },
);

/**
 * A urlencoded body as key -> value, or a list of values for a repeated key; null when its bytes, or
 * the bytes its percent-escapes stand for, are not UTF-8 (they would be stored as U+FFFD otherwise).
 * A `%` not followed by two hex digits stays as it is, as Django reads it.
 */
export function parseUrlencoded(body: Buffer): Record<string, string | string[]> | null {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    return null;
  }
  // No prototype: a `__proto__` key is a key like any other.
  const fields: Record<string, string | string[]> = Object.create(null);
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = decodeFormComponent(eq === -1 ? pair : pair.slice(0, eq));
    const value = decodeFormComponent(eq === -1 ? '' : pair.slice(eq + 1));
    if (key === null || value === null) return null;
    const prev = fields[key];
    fields[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return fields;
}

function decodeFormComponent(text: string): string | null {
  const plain = text.replace(/\+/g, ' ');
  if (!plain.includes('%')) return plain;
  const bytes: number[] = [];
  for (let i = 0; i < plain.length; i++) {
    const c = plain.charCodeAt(i);
    if (c === 0x25 && /^[0-9a-fA-F]{2}$/.test(plain.slice(i + 1, i + 3))) {
      bytes.push(parseInt(plain.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      // Copy the character's own UTF-8 bytes (a pair of surrogates is one code point).
      const cp = plain.codePointAt(i)!;
      if (cp > 0xffff) i++;
      bytes.push(...Buffer.from(String.fromCodePoint(cp), 'utf8'));
    }
  }
  try {
    return utf8.decode(Buffer.from(bytes));
  } catch {
    return null;
  }
}

function allowsNull(schema: Record<string, any> | undefined): boolean {
  if (!schema) return true;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('null')) return true;
  const branches = schema.anyOf ?? schema.oneOf;
  return Array.isArray(branches) && branches.some(allowsNull);
}

/**
 * Type coercion (needed for form bodies, where every value is a string) would turn a JSON null into
 * "" or 0; DRF says "This field may not be null." instead, so nulls are checked before validation.
 */
function rejectNulls(request: FastifyRequest): void {
  const schema = request.routeOptions.schema?.body as Record<string, any> | undefined;
  const body = request.body as Record<string, unknown> | null | undefined;
  if (!schema?.properties || !body || typeof body !== 'object' || Array.isArray(body)) return;
  const errors: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(body)) {
    if (value === null && key in schema.properties && !allowsNull(schema.properties[key])) {
      errors[key] = [messages.notNull];
    }
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}
