// Which report types need a display, which /recognize builds when none is named, and the stored type
// read back. The vocabulary itself is the schemas' (schemas/recognition.ts).
import { REPORT_TYPES, type ReportType } from '../schemas/recognition.js';

export { REPORT_TYPES, type ReportType };

/** A stored report type (only REPORT_TYPES are ever stored: /recognize refuses others). */
export function reportTypeOf(value: string): ReportType {
  const known = REPORT_TYPES.find((t) => t === value);
  if (!known) throw new Error(`Unknown report type "${value}" in the database.`);
  return known;
}
export const NEEDS_DISPLAY: ReadonlySet<string> = new Set(['PLANOGRAM_COMPLIANCE', 'MHL_COMPLIANCE']);
export const DEFAULT_REPORT_TYPES: ReportType[] = ['FACING_COUNT'];
/** The reports built on a scene's price tags: only a scene asking for one has its tags looked for. */
export const PRICE_REPORT_TYPES: ReadonlySet<string> = new Set(['PRICE_TAGS', 'PRICE_COMPLIANCE']);
