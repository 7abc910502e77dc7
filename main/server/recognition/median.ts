// The median shared by the recognition stages that judge a photo by its typical box (the detector's zoom
// decision, the shelf grouping's row height).

/** The upper median of `values` (the middle one after sorting), 0 for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
