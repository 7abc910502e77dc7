// The SKU form's values as typed, and the request body they become.
import type { Sku } from '../../api/types';

export interface SkuFormValues {
  name: string;
  cid: string;
  ean13: string;
  brand: string;
  category: string;
  manufacturer: string;
  size_x_mm: string;
  size_y_mm: string;
  size_z_mm: string;
  attributes: Array<{ key: string; value: string }>;
}

export const SIZE_FIELDS = ['size_x_mm', 'size_y_mm', 'size_z_mm'] as const;

export function valuesFromSku(sku: Sku | null): SkuFormValues {
  return {
    name: sku?.name ?? '',
    cid: sku?.cid ?? '',
    ean13: sku?.ean13 ?? '',
    brand: sku?.brand ?? '',
    category: sku?.category ?? '',
    manufacturer: sku?.manufacturer ?? '',
    size_x_mm: sku?.size_x_mm?.toString() ?? '',
    size_y_mm: sku?.size_y_mm?.toString() ?? '',
    size_z_mm: sku?.size_z_mm?.toString() ?? '',
    attributes: Object.entries(sku?.attributes ?? {}).map(([key, value]) => ({ key, value: String(value) })),
  };
}

/**
 * Blank optional fields become null. Sizes are sent as typed when they are not numbers, so the
 * server's validation message ("A valid number is required.") reaches the field, not a guess here.
 */
export function skuBody(values: SkuFormValues): Partial<Sku> & Record<string, unknown> {
  const text = (v: string) => (v.trim() === '' ? null : v.trim());
  const size = (v: string): number | string | null => {
    if (v.trim() === '') return null;
    const n = Number(v);
    return Number.isFinite(n) ? n : v;
  };
  const attributes: Record<string, string> = {};
  for (const { key, value } of values.attributes) if (key.trim()) attributes[key.trim()] = value;
  return {
    name: values.name,
    cid: text(values.cid),
    ean13: text(values.ean13),
    brand: text(values.brand),
    category: text(values.category),
    manufacturer: text(values.manufacturer),
    size_x_mm: size(values.size_x_mm) as number | null,
    size_y_mm: size(values.size_y_mm) as number | null,
    size_z_mm: size(values.size_z_mm) as number | null,
    attributes,
  };
}
