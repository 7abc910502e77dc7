// Turns JSON-Schema (AJV / TypeBox) validation errors into DRF's field errors and texts, so a client
// written against the real service sees the messages it expects (a request the server validates, a row
// the master-data import validates: plain data in, plain data out, so it lives in the domain):
//   {"name": ["This field is required."], "rack_index": ["A valid integer is required."]}
import { CURRENCY_PATTERN, DAY_PATTERN, MONEY_PATTERN } from '../schemas/prices.js';

export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: Record<string, any>;
  message?: string;
}

const typeMessages: Record<string, string> = {
  integer: 'A valid integer is required.',
  number: 'A valid number is required.',
  string: 'Not a valid string.',
  boolean: 'Must be a valid boolean.',
  object: 'Expected a dictionary of items.',
};

/** The words for a value a pattern refuses, by pattern (money, days, currencies: domain/money.ts, prices.ts). */
const PATTERN_MESSAGES: Record<string, string> = {
  [MONEY_PATTERN]: 'A valid amount is required: at least 0, at most 2 decimals, a point before them ("1.99").',
  [DAY_PATTERN]: 'Date has wrong format. Use one of these formats instead: YYYY-MM-DD.',
  [CURRENCY_PATTERN]: 'Enter a 3-letter ISO 4217 currency code in capitals ("EUR").',
};

function typeName(value: unknown): string {
  if (Array.isArray(value)) return 'list';
  if (value === null) return 'NoneType';
  return { string: 'str', number: 'int', boolean: 'bool', object: 'dict' }[typeof value as string] ?? typeof value;
}

function message(e: SchemaError, value: unknown): string {
  const p = e.params;
  switch (e.keyword) {
    case 'required':
      return 'This field is required.';
    case 'type': {
      const types: string[] = Array.isArray(p.type) ? p.type : String(p.type).split(',');
      if (value === null) return 'This field may not be null.';
      if (types.includes('array')) return `Expected a list of items but got type "${typeName(value)}".`;
      return typeMessages[types.find((t) => t !== 'null') ?? ''] ?? 'Invalid value.';
    }
    case 'minLength':
      return p.limit === 1 ? 'This field may not be blank.' : `Ensure this field has at least ${p.limit} characters.`;
    case 'maxLength':
      return `Ensure this field has no more than ${p.limit} characters.`;
    case 'minimum':
      return `Ensure this value is greater than or equal to ${p.limit}.`;
    case 'maximum':
      return `Ensure this value is less than or equal to ${p.limit}.`;
    case 'minItems':
      return p.limit === 1 ? 'This list may not be empty.' : `Ensure this field has at least ${p.limit} elements.`;
    case 'maxItems':
      return `Ensure this field has no more than ${p.limit} elements.`;
    case 'enum':
      return `"${String(value)}" is not a valid choice.`;
    case 'const':
      return `"${String(value)}" is not a valid choice.`;
    case 'format':
      if (p.format === 'date-time') {
        return 'Datetime has wrong format. Use one of these formats instead: YYYY-MM-DDThh:mm[:ss[.uuuuuu]][+HH:MM|-HH:MM|Z].';
      }
      if (p.format === 'uri' || p.format === 'url') return 'Enter a valid URL.';
      return 'Enter a valid value.';
    case 'pattern':
      return PATTERN_MESSAGES[p.pattern] ?? 'This value does not match the required pattern.';
    default:
      return 'Invalid value.';
  }
}

function valueAt(data: unknown, path: string[]): unknown {
  let v = data;
  for (const seg of path) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[seg] : undefined;
  return v;
}

/** DRF field errors for the errors of one validated value (a body, a querystring). */
export function drfFieldErrors(errors: readonly SchemaError[], data: unknown): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const e of errors) {
    // anyOf/oneOf summaries repeat what the branch errors already say.
    if (e.keyword === 'anyOf' || e.keyword === 'oneOf' || e.keyword === 'if') continue;
    const path = e.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    if (e.keyword === 'required') {
      // AJV names one missing property per error, TypeBox's Value.Errors lists them all in one.
      const missing: string[] = e.params.missingProperty !== undefined ? [e.params.missingProperty] : (e.params.requiredProperties ?? []);
      if (path.length === 0) for (const field of missing) out[field] ??= [message(e, undefined)];
      else out[path[0]] ??= [message(e, undefined)];
      continue;
    }
    if (path.length === 0) {
      const text =
        e.keyword === 'type' ? `Invalid data. Expected a dictionary, but got ${typeName(data)}.` : message(e, data);
      (out.non_field_errors ??= []).includes(text) || out.non_field_errors.push(text);
      continue;
    }
    const field = path[0];
    // A branch of a nullable union failing on "type: null" says nothing useful.
    if (e.keyword === 'type' && e.params.type === 'null') continue;
    if (out[field]) continue; // DRF reports one message per field here
    out[field] = [message(e, valueAt(data, path))];
  }
  if (Object.keys(out).length === 0) out.non_field_errors = ['Invalid data.'];
  return out;
}
