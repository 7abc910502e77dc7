// The identifier's best SKUs for the selected box, for the product picker's first entries: the ones the
// model stored with its box while the box stays where the model put it, else asked of the server for
// the box as it is now (drawn or moved by the reviewer).
import { useEffect, useState } from 'react';
import { suggestSkus } from '../../../api/endpoints';
import { useSession } from '../../../stores/session';
import type { EditBox } from './reviewStore';

export interface BoxSuggestions {
  skus: { sku_id: string; score: number }[];
  loading: boolean;
}

const moved = (b: EditBox) => !b.origin || b.origin.x !== b.x || b.origin.y !== b.y || b.origin.w !== b.w || b.origin.h !== b.h;

export function useBoxSuggestions(scene: string | null, image: string | null, box: EditBox | undefined, active: boolean): BoxSuggestions {
  const api = useSession((s) => s.api);
  const stored = box && !moved(box) ? box.origin?.suggestions : undefined;
  const [asked, setAsked] = useState<BoxSuggestions>({ skus: [], loading: false });
  const geometry = box ? `${box.x},${box.y},${box.w},${box.h}` : '';
  useEffect(() => {
    if (!active || !box || !scene || !image || stored) return;
    const controller = new AbortController();
    setAsked({ skus: [], loading: true });
    suggestSkus(api, scene, { image, x: box.x, y: box.y, w: box.w, h: box.h }, controller.signal).then(
      (r) => setAsked({ skus: r.suggestions, loading: false }),
      // Suggestions only help: without them the picker still searches the catalog.
      () => !controller.signal.aborted && setAsked({ skus: [], loading: false }),
    );
    return () => controller.abort();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the box's geometry, not its object identity
  }, [api, scene, image, geometry, active, stored]);
  return stored ? { skus: stored, loading: false } : asked;
}
