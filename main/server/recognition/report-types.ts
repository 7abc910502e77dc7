// The report types recognition builds, and which of them need a display.
export const REPORT_TYPES = ['FACING_COUNT', 'PLANOGRAM_COMPLIANCE', 'MHL_COMPLIANCE', 'PANORAMA', 'REALOGRAM', 'SHARE_OF_SPACE'] as const;
export type ReportType = (typeof REPORT_TYPES)[number];
export const NEEDS_DISPLAY: ReadonlySet<string> = new Set(['PLANOGRAM_COMPLIANCE', 'MHL_COMPLIANCE']);
export const DEFAULT_REPORT_TYPES: ReportType[] = ['FACING_COUNT'];
