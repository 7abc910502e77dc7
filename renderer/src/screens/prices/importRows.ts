// The import's refused rows (400 `failures`) as lines a person can find in their file: a CSV's line
// number (its header is line 1), a JSON list's row number, and each field with what is wrong.
import type { ImportFailure } from '../../api/types';

function messages(value: unknown): string {
  if (Array.isArray(value)) return value.map(messages).join(' ');
  if (value && typeof value === 'object') return Object.entries(value).map(([k, v]) => `${k}: ${messages(v)}`).join('; ');
  return String(value);
}

export function importRowLines(failures: readonly ImportFailure[], csv: boolean): string[] {
  return failures.map((f) => {
    const where = csv ? `Line ${f.index + 2}` : `Row ${f.index + 1}`;
    const id = f.id ? ` (${f.id})` : '';
    const what = Object.entries(f.errors)
      .map(([field, m]) => (field === 'non_field_errors' ? messages(m) : `${field}: ${messages(m)}`))
      .join('; ');
    return `${where}${id}: ${what}`;
  });
}
