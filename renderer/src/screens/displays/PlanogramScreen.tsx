// The visual planogram editor: racks side by side, shelves top to bottom, positions left to right,
// each drawn as its facings (across and stacked) with the product's picture. Drag an SKU from the
// palette onto a shelf, drag positions to reorder or move them; every action has a keyboard path too.
import { useCallback, useEffect, useMemo, useState, type DragEvent } from 'react';
import { createOne, deleteOne, getOne, listAll, updateOne } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import type { Planogram, PlanogramRecord, Sku } from '../../api/types';
import { SkuPicture } from '../../components/SkuPicture';
import { ErrorMessage, Loading } from '../../components/StateMessage';
import { useSubmission } from '../../components/useSubmission';
import { hrefFor } from '../../navigation/routes';
import { clearPlanogramDraft, loadPlanogramDraft, savePlanogramDraft } from '../../db/planogramDrafts';
import { useRecord } from '../../stores/recordById';
import { useSession } from '../../stores/session';
import { useSkuSearch, useSkus } from '../../stores/skuDirectory';
import {
  addRack,
  addShelf,
  diffRecords,
  findPosition,
  insertPosition,
  layoutFromRecords,
  movePosition,
  recordsFromLayout,
  removePosition,
  removeShelf,
  updatePosition,
  type Layout,
  type Place,
} from './planogramModel';

const DRAG_SKU = 'application/x-shelf-audit-sku';
const DRAG_POSITION = 'application/x-shelf-audit-position';

export function PlanogramScreen({ id }: { id: string }) {
  const api = useSession((s) => s.api);
  const [planogram, setPlanogram] = useState<Planogram | null>(null);
  const [records, setRecords] = useState<PlanogramRecord[] | null>(null);
  const [layout, setLayout] = useState<Layout | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [paletteSku, setPaletteSku] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [restored, setRestored] = useState(false);
  const { busy, error, submit } = useSubmission();

  const load = useCallback(() => {
    setLoadError(null);
    Promise.all([
      getOne(api, 'planograms', id),
      listAll(api, 'planogram_records', { planogram: id }),
      loadPlanogramDraft(id).catch(() => null),
    ]).then(
      ([p, all, draft]) => {
        // The list may not filter by planogram; keep only this one's records either way.
        const mine = all.filter((r) => r.planogram === id);
        setPlanogram(p);
        setRecords(mine);
        setLayout(draft ?? layoutFromRecords(mine));
        setRestored(!!draft);
      },
      (e) => setLoadError(describeError(e)),
    );
  }, [api, id]);
  useEffect(load, [load]);

  // Only the SKUs placed here are fetched (by id); the palette searches the catalog on the server.
  // Searched from the start, beside the planogram's own requests, not after them.
  const [paletteSearch, setPaletteSearch] = useState('');
  const palette = useSkuSearch(paletteSearch, 30);
  const skuById = useSkus((layout ?? []).flat(2).map((p) => p.sku));
  // Its display's name, read by id once the planogram names it.
  const display = useRecord('displays', planogram?.display);
  const dirty = useMemo(() => {
    if (!layout || !records) return false;
    const d = diffRecords(records, recordsFromLayout(layout, id));
    return d.create.length + d.update.length + d.remove.length > 0;
  }, [layout, records, id]);

  if (loadError) return <ErrorMessage message={loadError} onRetry={load} />;
  if (!planogram || !layout || !records) return <Loading what="planogram" />;

  const edit = (next: Layout) => {
    setLayout(next);
    setSaved(false);
    void savePlanogramDraft(id, next);
  };
  const discard = () => {
    void clearPlanogramDraft(id);
    setRestored(false);
    setLayout(layoutFromRecords(records));
  };
  const newPosition = (sku: string) => ({ id: crypto.randomUUID(), sku, facing_x: 1, facing_y: 1, width: null, height: null });
  const place = (at: Place, data: { sku?: string; position?: string }) => {
    if (data.position) edit(movePosition(layout, data.position, at));
    else if (data.sku) {
      const p = newPosition(data.sku);
      edit(insertPosition(layout, at, p));
      setSelected(p.id);
    }
  };
  const selectedPlace = selected ? findPosition(layout, selected) : null;
  const selectedPosition = selectedPlace ? layout[selectedPlace.rack][selectedPlace.shelf][selectedPlace.index] : null;

  async function save() {
    const edited = recordsFromLayout(layout!, id);
    const diff = diffRecords(records!, edited);
    for (const rid of diff.remove) await deleteOne(api, 'planogram_records', rid);
    for (const u of diff.update) await updateOne(api, 'planogram_records', u.id, u.patch);
    for (const c of diff.create) await createOne(api, 'planogram_records', c);
    return true;
  }

  const displayName = planogram.display ? (display?.name ?? planogram.display) : null;

  return (
    <section aria-labelledby="planogram-title" className="planogram-screen">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <a href={hrefFor({ screen: 'displays' })}>Displays</a> / {planogram.name}
      </nav>
      <header className="screen-header">
        <h2 id="planogram-title">Planogram: {planogram.name}</h2>
        <span className="muted">{displayName ? `Display: ${displayName}` : 'Not tied to a display'}</span>
        <button
          type="button"
          className="primary"
          disabled={busy || !dirty}
          onClick={async () => {
            setSaved(false);
            const ok = await submit(save);
            // After a partial failure the draft stays, so nothing typed is lost; the server's state
            // is shown once the save went through.
            if (ok) {
              await clearPlanogramDraft(id);
              setSaved(true);
              setRestored(false);
              load();
            } else {
              // Compare the next save with what the server holds now, keeping the edits on screen.
              listAll(api, 'planogram_records', { planogram: id }).then(
                (all) => setRecords(all.filter((r) => r.planogram === id)),
                () => undefined,
              );
            }
          }}
        >
          Save planogram
        </button>
      </header>
      {error && <ErrorMessage message={`Not all changes were saved: ${error}`} />}
      {saved && !dirty && (
        <p role="status" className="form-saved">
          Planogram saved.
        </p>
      )}
      {dirty && (
        <p className="muted" role="status">
          {restored ? 'Unsaved changes from an earlier session, kept on this computer.' : 'Unsaved changes.'}{' '}
          <button type="button" className="link" onClick={discard}>
            Discard changes
          </button>
        </p>
      )}
      <div className="planogram-layout">
        <SkuPalette search={paletteSearch} onSearch={setPaletteSearch} found={palette} selected={paletteSku} onSelect={setPaletteSku} />
        <div className="planogram-canvas" role="group" aria-label="Planogram">
          {layout.map((rack, r) => (
            <section className="rack" key={r} aria-label={`Rack ${r + 1}`}>
              <h3>Rack {r + 1}</h3>
              {rack.map((shelf, s) => (
                <ShelfRow
                  key={s}
                  rack={r}
                  shelf={s}
                  positions={shelf}
                  skuById={skuById}
                  selected={selected}
                  paletteSku={paletteSku}
                  onSelect={setSelected}
                  onPlace={place}
                  onRemoveShelf={() => edit(removeShelf(layout, r, s))}
                />
              ))}
              <button type="button" onClick={() => edit(addShelf(layout, r))}>
                Add shelf to rack {r + 1}
              </button>
            </section>
          ))}
          <button type="button" className="add-rack" onClick={() => edit(addRack(layout))}>
            Add rack
          </button>
        </div>
        <aside className="position-panel" aria-label="Selected position">
          {selectedPosition && selectedPlace ? (
            <>
              <h3>{skuById.get(selectedPosition.sku)?.name ?? selectedPosition.sku}</h3>
              <p className="muted">
                Rack {selectedPlace.rack + 1}, shelf {selectedPlace.shelf + 1}, position {selectedPlace.index + 1}
              </p>
              <label>
                Facings across
                <input
                  type="number"
                  min={1}
                  max={50}
                  value={selectedPosition.facing_x}
                  onChange={(e) => edit(updatePosition(layout, selectedPosition.id, { facing_x: Math.max(1, Number(e.target.value) || 1) }))}
                />
              </label>
              <label>
                Facings stacked
                <input
                  type="number"
                  min={1}
                  max={20}
                  value={selectedPosition.facing_y}
                  onChange={(e) => edit(updatePosition(layout, selectedPosition.id, { facing_y: Math.max(1, Number(e.target.value) || 1) }))}
                />
              </label>
              <div className="button-grid">
                <button
                  type="button"
                  disabled={selectedPlace.index === 0}
                  onClick={() => edit(movePosition(layout, selectedPosition.id, { ...selectedPlace, index: selectedPlace.index - 1 }))}
                >
                  Move left
                </button>
                <button
                  type="button"
                  disabled={selectedPlace.index >= layout[selectedPlace.rack][selectedPlace.shelf].length - 1}
                  onClick={() => edit(movePosition(layout, selectedPosition.id, { ...selectedPlace, index: selectedPlace.index + 2 }))}
                >
                  Move right
                </button>
                <button
                  type="button"
                  disabled={selectedPlace.shelf === 0}
                  onClick={() =>
                    edit(movePosition(layout, selectedPosition.id, { ...selectedPlace, shelf: selectedPlace.shelf - 1, index: Number.MAX_SAFE_INTEGER }))
                  }
                >
                  Move up a shelf
                </button>
                <button
                  type="button"
                  disabled={selectedPlace.shelf >= layout[selectedPlace.rack].length - 1}
                  onClick={() =>
                    edit(movePosition(layout, selectedPosition.id, { ...selectedPlace, shelf: selectedPlace.shelf + 1, index: Number.MAX_SAFE_INTEGER }))
                  }
                >
                  Move down a shelf
                </button>
              </div>
              <button
                type="button"
                className="danger"
                onClick={() => {
                  edit(removePosition(layout, selectedPosition.id));
                  setSelected(null);
                }}
              >
                Remove position
              </button>
            </>
          ) : (
            <p className="muted">
              Select a position to change its facings, or drag a product from the list onto a shelf.
            </p>
          )}
        </aside>
      </div>
    </section>
  );
}

function SkuPalette(props: {
  search: string;
  onSearch(search: string): void;
  found: { items: Sku[]; loading: boolean };
  selected: string | null;
  onSelect(id: string | null): void;
}) {
  const { search, onSearch: setSearch, selected, onSelect } = props;
  const { items: shown, loading } = props.found;
  return (
    <aside className="sku-palette" aria-label="Products">
      <label>
        Find product
        <input type="search" value={search} onChange={(e) => setSearch(e.target.value)} />
      </label>
      <ul>
        {shown.map((s) => (
          <li key={s.id}>
            <button
              type="button"
              draggable
              aria-pressed={selected === s.id}
              onClick={() => onSelect(selected === s.id ? null : s.id)}
              onDragStart={(e) => {
                e.dataTransfer.setData(DRAG_SKU, s.id);
                e.dataTransfer.effectAllowed = 'copy';
              }}
            >
              <SkuPicture sku={s} size="small" />
              <span>{s.name}</span>
            </button>
          </li>
        ))}
      </ul>
      {!loading && shown.length === 0 && <p className="muted">{search.trim() ? `No product matches “${search}”.` : 'No SKUs in the catalog yet.'}</p>}
    </aside>
  );
}

function dropData(e: DragEvent): { sku?: string; position?: string } {
  return { sku: e.dataTransfer.getData(DRAG_SKU) || undefined, position: e.dataTransfer.getData(DRAG_POSITION) || undefined };
}

function ShelfRow(props: {
  rack: number;
  shelf: number;
  positions: Layout[number][number];
  skuById: Map<string, Sku>;
  selected: string | null;
  paletteSku: string | null;
  onSelect(id: string | null): void;
  onPlace(at: Place, data: { sku?: string; position?: string }): void;
  onRemoveShelf(): void;
}) {
  const [over, setOver] = useState(false);
  const label = `Rack ${props.rack + 1} shelf ${props.shelf + 1}`;
  const paletteName = props.paletteSku ? props.skuById.get(props.paletteSku)?.name : null;
  return (
    <div className="shelf-row">
      <div
        className={`shelf${over ? ' shelf-over' : ''}`}
        role="list"
        aria-label={label}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          props.onPlace({ rack: props.rack, shelf: props.shelf, index: props.positions.length }, dropData(e));
        }}
      >
        {props.positions.map((p, i) => {
          const sku = props.skuById.get(p.sku);
          const name = sku?.name ?? p.sku;
          return (
            <div
              role="listitem"
              key={p.id}
              className={`position${props.selected === p.id ? ' position-selected' : ''}`}
              style={{ flex: `0 0 ${p.facing_x * 4.5}rem` }}
              draggable
              onDragStart={(e) => {
                e.dataTransfer.setData(DRAG_POSITION, p.id);
                e.dataTransfer.effectAllowed = 'move';
              }}
              onDragOver={(e) => e.preventDefault()}
              onDrop={(e) => {
                // Dropped on a position: insert before it.
                e.preventDefault();
                e.stopPropagation();
                setOver(false);
                props.onPlace({ rack: props.rack, shelf: props.shelf, index: i }, dropData(e));
              }}
            >
              <button
                type="button"
                className="position-button"
                aria-pressed={props.selected === p.id}
                aria-label={`${name}, ${p.facing_x} across, ${p.facing_y} stacked`}
                onClick={() => props.onSelect(props.selected === p.id ? null : p.id)}
              >
                <span
                  className="facings"
                  style={{ gridTemplateColumns: `repeat(${p.facing_x}, 1fr)`, gridTemplateRows: `repeat(${p.facing_y}, 1fr)` }}
                >
                  {Array.from({ length: Math.min(p.facing_x * p.facing_y, 60) }, (_, k) => (
                    <SkuPicture key={k} sku={sku ?? { id: p.sku, name }} size="cell" />
                  ))}
                </span>
                <span className="position-name">{name}</span>
              </button>
            </div>
          );
        })}
        {props.positions.length === 0 && <span className="shelf-empty">Empty shelf: drop products here</span>}
      </div>
      <div className="shelf-tools">
        <button
          type="button"
          disabled={!props.paletteSku}
          aria-label={paletteName ? `Add ${paletteName} to ${label.toLocaleLowerCase()}` : `Add selected product to ${label.toLocaleLowerCase()}`}
          onClick={() =>
            props.paletteSku && props.onPlace({ rack: props.rack, shelf: props.shelf, index: props.positions.length }, { sku: props.paletteSku })
          }
        >
          Add here
        </button>
        <button type="button" aria-label={`Remove ${label.toLocaleLowerCase()}`} onClick={props.onRemoveShelf}>
          Remove shelf
        </button>
      </div>
    </div>
  );
}
