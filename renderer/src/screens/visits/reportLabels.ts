import type { ReportType } from '../../api/types';

/** What each report is called on screen. */
export const REPORT_LABEL: Record<ReportType, string> = {
  FACING_COUNT: 'Facing count',
  PLANOGRAM_COMPLIANCE: 'Planogram compliance',
  MHL_COMPLIANCE: 'Must-have list',
  PANORAMA: 'Panorama',
  REALOGRAM: 'Products on photos',
  SHARE_OF_SPACE: 'Share of space',
  PRICE_TAGS: 'Price tags',
  PRICE_COMPLIANCE: 'Price compliance',
};
