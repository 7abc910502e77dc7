// The product of a box, chosen from the catalog searched on the server. Before anything is typed the
// box's current SKU comes first, then the identifier's best candidates for its crop (suggestions.ts);
// typing searches the whole catalog, and Enter takes the first match of what was typed.
import { useEffect, useRef, useState } from 'react';
import type { Sku } from '../../../api/types';
import { useSkuSearch } from '../../../stores/skuDirectory';
import type { BoxSuggestions } from './suggestions';

export function BoxSkuPicker({
  current,
  currentName,
  suggestions,
  nameOf,
  onPick,
  onUnknown,
  onClose,
}: {
  current: string | null;
  currentName: string | null;
  suggestions: BoxSuggestions;
  nameOf(sku: string): string;
  onPick(sku: string): void;
  onUnknown(): void;
  onClose(): void;
}) {
  const [term, setTerm] = useState('');
  const found = useSkuSearch(term, 15);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const matches: Array<Pick<Sku, 'id' | 'name'>> = found.items.filter((s) => s.id !== current);
  const suggested = suggestions.skus.filter((s) => s.sku_id !== current).map((s) => ({ id: s.sku_id, name: nameOf(s.sku_id), score: s.score }));
  const idle = !term.trim();
  const options: Array<Pick<Sku, 'id' | 'name'> & { score?: number }> = idle
    ? [...(current ? [{ id: current, name: currentName ?? current }] : []), ...suggested]
    : matches;

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
      <ul className="box-picker-list" aria-label="Products" aria-busy={idle ? suggestions.loading : found.loading}>
        {options.map((s) => (
          <li key={s.id}>
            <button type="button" onClick={() => onPick(s.id)} aria-current={s.id === current ? 'true' : undefined}>
              {s.name}
              {s.id === current && <span className="muted"> (current)</span>}
              {s.score !== undefined && <span className="muted"> (suggested, {Math.round(s.score * 100)}%)</span>}
            </button>
          </li>
        ))}
        {idle && suggestions.loading && <li className="muted">Finding likely products…</li>}
        {idle && !suggestions.loading && options.length === 0 && <li className="muted">Type to search the catalog.</li>}
        {!idle && !found.loading && options.length === 0 && <li className="muted">No product matches “{term}”.</li>}
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
