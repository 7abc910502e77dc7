// Values a client may send, beyond what a schema says: how deep JSON may nest, which text and which
// numbers are refused. DRF refuses NUL and lone surrogates in text (its CharField validators) and has
// no number for Infinity; such values, once stored, broke every read.
// Checked once for every route, after parsing and coercion, before any handler runs.
import type { FastifyRequest } from 'fastify';
import { ValidationError } from '../domain/errors.js';

/** Deeper JSON is refused before it is parsed: validation and serialization recurse on it. */
export const MAX_JSON_DEPTH = 64;

/** Whether JSON text nests arrays/objects deeper than `limit` (strings skipped; stops early). */
export function jsonNestsDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** DRF's ProhibitNullCharactersValidator and ProhibitSurrogateCharactersValidator, in their words. */
export function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'Null characters are not allowed.';
  const m = LONE_SURROGATE.exec(text);
  if (m) return `Surrogate characters are not allowed: U+${m[0].charCodeAt(0).toString(16).toUpperCase()}.`;
  return null;
}

/** The first refused value under each top-level field of `data`, as DRF field errors. */
function refusedValues(data: unknown): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (!data || typeof data !== 'object') return errors;
  for (const [field, value] of Object.entries(data as Record<string, unknown>)) {
    // Iterative: bodies are bounded in depth by the parser, but nothing here may recurse on input.
    const stack: unknown[] = [field, value];
    while (stack.length > 0) {
      const v = stack.pop();
      let problem: string | null = null;
      if (typeof v === 'string') problem = textProblem(v);
      else if (typeof v === 'number' && !Number.isFinite(v)) problem = 'A valid number is required.';
      else if (v && typeof v === 'object' && !Buffer.isBuffer(v)) {
        for (const [k, inner] of Object.entries(v)) stack.push(k, inner);
      }
      if (problem) {
        errors[field] = [problem];
        break;
      }
    }
  }
  return errors;
}

/** preHandler hook: refuses a request whose body or query holds refused text or numbers. */
export async function refuseUnsafeValues(request: FastifyRequest): Promise<void> {
  const errors = { ...refusedValues(request.query), ...refusedValues(request.body) };
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
}
