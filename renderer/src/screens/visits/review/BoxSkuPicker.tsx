// The product of a box, chosen from the catalog searched on the server. The identifier's own
// candidates for the crop are not stored (docs/recognition.md, "Review"), so the box's current SKU comes
// first and the search's matches after it; Enter takes the first match of what was typed.
import { useEffect, useRef, useState } from 'react';
import type { Sku } from '../../../api/types';
import { useSkuSearch } from '../../../stores/skuDirectory';

export function BoxSkuPicker({
  current,
  currentName,
  onPick,
  onUnknown,
  onClose,
}: {
  current: string | null;
  currentName: string | null;
  onPick(sku: string): void;
  onUnknown(): void;
  onClose(): void;
}) {
  const [term, setTerm] = useState('');
  const found = useSkuSearch(term, 15);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const matches: Array<Pick<Sku, 'id' | 'name'>> = found.items.filter((s) => s.id !== current);
  const options = current && !term.trim() ? [{ id: current, name: currentName ?? current }, ...matches] : matches;

  return (
    <div className="box-picker" role="group" aria-label="Change product">
      <label>
        Find product
        <input
          ref={input}
          type="search"
          value={term}
          placeholder="Name, customer id or EAN"
          onChange={(e) => setTerm(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              onClose();
            } else if (e.key === 'Enter' && !found.loading && matches[0]) {
              e.preventDefault();
              onPick(matches[0].id);
            }
          }}
        />
      </label>
      <ul className="box-picker-list" aria-label="Products" aria-busy={found.loading}>
        {options.map((s) => (
          <li key={s.id}>
            <button type="button" onClick={() => onPick(s.id)} aria-current={s.id === current ? 'true' : undefined}>
              {s.name}
              {s.id === current && <span className="muted"> (current)</span>}
            </button>
          </li>
        ))}
        {!found.loading && options.length === 0 && <li className="muted">No product matches “{term}”.</li>}
      </ul>
      <div className="box-picker-actions">
        <button type="button" onClick={onUnknown}>
          Not in the catalog (unknown)
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </div>
  );
}
