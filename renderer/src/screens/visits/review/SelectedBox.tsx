// The selected box: its product, where it came from, what can be done to it, and the product picker.
import type { SkuColours } from '../skuColours';
import { BoxSkuPicker } from './BoxSkuPicker';
import { acceptKey, type EditBox, type ReviewStore, type Selection } from './reviewStore';
import type { BoxSuggestions } from './suggestions';
import type { ReviewTools } from './useReviewTools';

export type BoxNameOf = (sku: string | null, box?: EditBox) => string;

export function SelectedBox({
  store,
  selected,
  box,
  tools,
  suggestions,
  nameOf,
  colourOf,
}: {
  store: ReviewStore;
  selected: Selection | null;
  box: EditBox | undefined;
  tools: ReviewTools;
  suggestions: BoxSuggestions;
  nameOf: BoxNameOf;
  colourOf: SkuColours;
}) {
  const accepted = store((s) => s.accepted);
  const facing = store((s) => (selected ? s.facingOf[acceptKey(selected)] : undefined));
  const current = store((s) => s.current);
  const photoNumbers = facing ? facing.views.map((v) => Object.keys(current).indexOf(v.photo) + 1).filter((n) => n > 0) : [];
  const { picking, setPicking, acceptAndNext, unknownSelected, removeSelected } = tools;
  return (
    <section className="review-box" aria-label="Selected box" aria-live="polite">
      {box && selected ? (
        <>
          <p>
            <span className="swatch" style={{ background: colourOf(box.sku_id) }} aria-hidden="true" /> <strong>{nameOf(box.sku_id, box)}</strong>
            {accepted[acceptKey(selected)] && <span className="badge badge-ok">accepted</span>}
          </p>
          <p className="muted">
            {box.origin
              ? `${box.origin.source === 'model' ? 'Found by the model' : 'Drawn by a reviewer'}: detection ${box.origin.score.toFixed(2)}, match ${box.origin.sku_score.toFixed(2)}`
              : 'Drawn now, not saved yet'}
          </p>
          {photoNumbers.length > 1 && (
            <p className="muted">
              Seen in photos {photoNumbers.join(' and ')} of the bay (facing F{facing!.index + 1}): counted once, and a change applies to each.
            </p>
          )}
          <div className="review-box-actions">
            <button type="button" onClick={() => setPicking(true)} aria-keyshortcuts="C">
              Change product
            </button>
            <button type="button" onClick={acceptAndNext} aria-keyshortcuts="A">
              Accept
            </button>
            <button type="button" onClick={unknownSelected} aria-keyshortcuts="U">
              Unknown on purpose
            </button>
            <button type="button" className="danger" onClick={removeSelected} aria-keyshortcuts="Delete">
              Not a product
            </button>
          </div>
          {picking && (
            <BoxSkuPicker
              key={`${selected.photo}#${selected.box}`}
              current={box.sku_id}
              currentName={box.sku_id ? nameOf(box.sku_id) : null}
              suggestions={suggestions}
              nameOf={(sku) => nameOf(sku)}
              onPick={(sku) => {
                store.getState().relabel(selected.photo, selected.box, sku);
                setPicking(false);
              }}
              onUnknown={unknownSelected}
              onClose={() => setPicking(false)}
            />
          )}
        </>
      ) : (
        <p className="muted">Click a box, or press N for the next one.</p>
      )}
    </section>
  );
}
