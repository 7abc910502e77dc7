// The report types recognition builds, and which of them need a display.
export const REPORT_TYPES = ['FACING_COUNT', 'PLANOGRAM_COMPLIANCE', 'MHL_COMPLIANCE', 'PANORAMA', 'REALOGRAM', 'SHARE_OF_SPACE'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];

/** A stored report type (only REPORT_TYPES are ever stored: /recognize refuses others). */
export function reportTypeOf(value: string): ReportType {
  const known = REPORT_TYPES.find((t) => t === value);
  if (!known) throw new Error(`Unknown report type "${value}" in the database.`);
  return known;
}
export const NEEDS_DISPLAY: ReadonlySet<string> = new Set(['PLANOGRAM_COMPLIANCE', 'MHL_COMPLIANCE']);
export const DEFAULT_REPORT_TYPES: ReportType[] = ['FACING_COUNT'];
