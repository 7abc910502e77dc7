// Names and colours of the products under review: those of the boxes, of the reported errors and of
// the picker's suggestions, read by id. Colours come from the saved boxes: a product chosen during the
// review must not shift the others' colours.
import { useMemo } from 'react';
import type { SceneMessage } from '../../../api/types';
import { useSkus } from '../../../stores/skuDirectory';
import { skuColours } from '../skuColours';
import type { EditBox, ReviewStore } from './reviewStore';
import type { BoxNameOf } from './SelectedBox';
import type { BoxSuggestions } from './suggestions';

export function useReviewNames(store: ReviewStore, messages: readonly SceneMessage[], suggestions: BoxSuggestions) {
  const current = store((s) => s.current);
  const saved = store((s) => s.saved);
  const skuIds = [
    ...Object.values(current).flatMap((p) => p.boxes.map((b) => b.sku_id)),
    ...messages.map((m) => m.sku_gid),
    ...suggestions.skus.map((s) => s.sku_id),
  ].filter((s): s is string => !!s);
  const skus = useSkus(skuIds);
  const colourOf = useMemo(() => skuColours(Object.values(saved).flatMap((p) => p.boxes.map((b) => b.sku_id))), [saved]);
  const nameOf: BoxNameOf = (sku: string | null, b?: EditBox) =>
    sku ? (skus.get(sku)?.name ?? sku) : b?.unknown_on_purpose ? 'Unknown product (on purpose)' : 'No product chosen';
  return { nameOf, colourOf };
}
