import { describe, expect, it } from 'vitest';
import { importRowLines } from './importRows';

describe('refused import rows in words', () => {
  const failures = [
    { entity: 'price_list', index: 0, id: null, errors: { sku: ['Invalid pk "ghost" - object does not exist.'] } },
    { entity: 'price_list', index: 3, id: 'p-4', errors: { price: ['A valid amount is required.'], currency: ['Enter a code.'] } },
    { entity: 'price_list', index: 5, id: null, errors: { non_field_errors: ['Overlaps price "p-1".'] } },
  ];

  it("names a CSV's line (its header is line 1) and a JSON list's row, each field with its messages", () => {
    expect(importRowLines(failures, true)).toEqual([
      'Line 2: sku: Invalid pk "ghost" - object does not exist.',
      'Line 5 (p-4): price: A valid amount is required.; currency: Enter a code.',
      'Line 7: Overlaps price "p-1".',
    ]);
    expect(importRowLines(failures, false)[0]).toBe('Row 1: sku: Invalid pk "ghost" - object does not exist.');
  });
});
