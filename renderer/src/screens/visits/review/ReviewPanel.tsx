// Review mode of the visit screen: every photo of every scene with its boxes to correct (change the
// product, mark unknown on purpose, delete, draw, move, resize), undo and redo, keyboard shortcuts, the
// counts as corrected and the recognition errors reported on the scene as a to-do list. Nothing reaches
// the server until Save; leaving with unsaved corrections asks first (docs/recognition.md, "Review").
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { getAnnotations, listRecognitionErrors, saveAnnotations } from '../../../api/endpoints';
import { ApiError, describeError } from '../../../api/errors';
import type { SceneMessage } from '../../../api/types';
import { ErrorMessage, Loading } from '../../../components/StateMessage';
import { guardLeaving } from '../../../navigation/leaveGuard';
import { useSession } from '../../../stores/session';
import { useSkus } from '../../../stores/skuDirectory';
import { skuColours } from '../skuColours';
import { BoxSkuPicker } from './BoxSkuPicker';
import { useBoxSuggestions } from './suggestions';
import { ReviewPhoto, type ZoomControl } from './ReviewPhoto';
import { acceptKey, changedPhotos, correctionOf, countBoxes, createReviewStore, photoKey, type EditBox } from './reviewStore';
import type { View } from './view';
import { FacingTable } from '../FacingTable';

export const UNSAVED_MESSAGE = 'You have unsaved corrections to the boxes. Leave without saving them?';

export function ReviewPanel({ scenes, onSaved, onClose }: { scenes: readonly string[]; onSaved(message: string): void; onClose(): void }) {
  const api = useSession((s) => s.api);
  const [store] = useState(createReviewStore);
  const current = store((s) => s.current);
  const saved = store((s) => s.saved);
  const selected = store((s) => s.selected);
  const canUndo = store((s) => s.past.length > 0);
  const canRedo = store((s) => s.future.length > 0);
  const accepted = store((s) => s.accepted);
  const [loading, setLoading] = useState(true);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [messages, setMessages] = useState<SceneMessage[]>([]);
  const [active, setActive] = useState<string | null>(null);
  const [views, setViews] = useState<Record<string, View>>({});
  const [drawing, setDrawing] = useState(false);
  const [picking, setPicking] = useState(false);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<{ message: string; conflict: boolean } | null>(null);
  const zoom = useRef<ZoomControl | null>(null);

  const sceneKey = scenes.join(',');
  const load = useCallback(() => {
    setLoading(true);
    setLoadError(null);
    setSaveError(null);
    const ids = sceneKey.split(',').filter(Boolean);
    Promise.all(ids.map((s) => getAnnotations(api, s))).then(
      (list) => {
        store.getState().load(list);
        setLoading(false);
      },
      (e) => {
        setLoadError(describeError(e));
        setLoading(false);
      },
    );
    Promise.all(ids.map((s) => listRecognitionErrors(api, s))).then((m) => setMessages(m.flat()), () => undefined);
  }, [api, sceneKey, store]);
  useEffect(load, [load]);

  const photos = Object.values(current);
  const changed = useMemo(() => changedPhotos({ current, saved }), [current, saved]);
  const dirty = changed.length > 0;
  useEffect(() => (dirty ? guardLeaving(() => UNSAVED_MESSAGE) : undefined), [dirty]);

  // The photo on screen follows the selection (the next box may be on the next photo).
  const activeKey = selected?.photo ?? (active && current[active] ? active : photos[0] ? photoKey(photos[0].scene, photos[0].image) : null);
  useEffect(() => {
    if (selected) setActive(selected.photo);
  }, [selected]);
  const photo = activeKey ? current[activeKey] : undefined;
  const box: EditBox | undefined = selected ? current[selected.photo]?.boxes.find((b) => b.id === selected.box) : undefined;
  useEffect(() => {
    if (!box) setPicking(false);
  }, [box]);

  const selectedPhoto = selected ? current[selected.photo] : undefined;
  const suggestions = useBoxSuggestions(selectedPhoto?.scene ?? null, selectedPhoto?.image ?? null, box, picking);
  const skuIds = [
    ...photos.flatMap((p) => p.boxes.map((b) => b.sku_id)),
    ...messages.map((m) => m.sku_gid),
    ...suggestions.skus.map((s) => s.sku_id),
  ].filter((s): s is string => !!s);
  const skus = useSkus(skuIds);
  const colourOf = useMemo(() => skuColours(Object.values(saved).flatMap((p) => p.boxes.map((b) => b.sku_id))), [saved]);
  const nameOf = (sku: string | null, b?: EditBox) =>
    sku ? (skus.get(sku)?.name ?? sku) : b?.unknown_on_purpose ? 'Unknown product (on purpose)' : 'No product chosen';

  const save = useCallback(async () => {
    const state = store.getState();
    const toSave = [...new Set(changedPhotos(state).map((k) => state.current[k].scene))];
    if (toSave.length === 0) return;
    setSaving(true);
    setSaveError(null);
    try {
      for (const scene of toSave) {
        const body = correctionOf(store.getState(), scene);
        if (body) store.getState().savedScene(await saveAnnotations(api, scene, body));
      }
      onSaved('Corrections saved: the reports are being computed again.');
    } catch (e) {
      const conflict = e instanceof ApiError && e.status === 409;
      setSaveError({
        conflict,
        message: conflict
          ? `Not saved: someone else saved corrections to this scene since you opened it (${describeError(e)}). Reload to see theirs; your unsaved corrections will be lost.`
          : `Not saved: ${describeError(e)}`,
      });
    } finally {
      setSaving(false);
    }
  }, [api, onSaved, store]);

  const setView = useCallback((key: string, v: View) => setViews((all) => ({ ...all, [key]: v })), []);
  const acceptAndNext = () => {
    const s = store.getState();
    if (s.selected) s.accept(s.selected.photo, s.selected.box);
    s.step(1, activeKey ?? undefined);
  };
  const removeSelected = () => {
    const s = store.getState();
    if (s.selected) s.remove(s.selected.photo, s.selected.box);
  };
  const unknownSelected = () => {
    const s = store.getState();
    if (s.selected) s.markUnknown(s.selected.photo, s.selected.box);
    setPicking(false);
  };

  // Shortcuts work anywhere on the screen except while typing (the picker's search has its own keys).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target?.closest('input, textarea, select, dialog')) return;
      const s = store.getState();
      const key = e.key.toLowerCase();
      const command = e.ctrlKey || e.metaKey;
      let handled = true;
      if (command && key === 'z') (e.shiftKey ? s.redo : s.undo)();
      else if (command && key === 'y') s.redo();
      else if (command && key === 's') void save();
      else if (command || e.altKey) handled = false;
      else if (key === 'n') s.step(1, activeKey ?? undefined);
      else if (key === 'p') s.step(-1, activeKey ?? undefined);
      else if (key === 'a' || (key === 'enter' && !target?.closest('button, a'))) acceptAndNext();
      else if (key === 'c' && s.selected) setPicking(true);
      else if ((key === 'delete' || key === 'backspace') && s.selected) removeSelected();
      else if (key === 'u' && s.selected) unknownSelected();
      else if (key === 'd') setDrawing((d) => !d);
      else if (key === '+' || key === '=') zoom.current?.(1.25);
      else if (key === '-') zoom.current?.(0.8);
      else if (key === '0') zoom.current?.('fit');
      else if (key === 'escape') {
        if (drawing) setDrawing(false);
        else if (picking) setPicking(false);
        else s.select(null);
      } else handled = false;
      if (handled) e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });

  if (loadError) return <ErrorMessage message={`The boxes could not be read: ${loadError}`} onRetry={load} />;
  if (loading) return <Loading what="boxes" />;
  if (!photo) return <p className="muted">No photo of this visit has been recognised yet.</p>;

  const sceneBoxes = (boxes: (k: string) => readonly { sku_id: string | null }[]) =>
    Object.keys(current)
      .filter((k) => current[k].scene === photo.scene)
      .flatMap((k) => boxes(k));
  const counts = countBoxes(sceneBoxes((k) => current[k].boxes));
  const before = new Map(countBoxes(sceneBoxes((k) => saved[k]?.boxes ?? [])).map((c) => [c.sku_id, c.count]));
  const todo = messages.filter((m) => m.scene === photo.scene);

  return (
    <div className="review">
      <div className="review-toolbar" role="toolbar" aria-label="Review">
        <button type="button" onClick={() => store.getState().undo()} disabled={!canUndo} aria-keyshortcuts="Control+Z">
          Undo
        </button>
        <button type="button" onClick={() => store.getState().redo()} disabled={!canRedo} aria-keyshortcuts="Control+Shift+Z">
          Redo
        </button>
        <button type="button" aria-pressed={drawing} onClick={() => setDrawing((d) => !d)} aria-keyshortcuts="D">
          Draw box
        </button>
        <button type="button" onClick={() => zoom.current?.(1.25)} aria-label="Zoom in" aria-keyshortcuts="+">
          +
        </button>
        <button type="button" onClick={() => zoom.current?.(0.8)} aria-label="Zoom out" aria-keyshortcuts="-">
          −
        </button>
        <button type="button" onClick={() => zoom.current?.('fit')} aria-keyshortcuts="0">
          Fit
        </button>
        <span className="muted" role="status">
          {dirty ? `${changed.length} photo${changed.length === 1 ? '' : 's'} with unsaved corrections` : 'No unsaved corrections'}
        </span>
        <button type="button" className="primary" onClick={() => void save()} disabled={!dirty || saving} aria-keyshortcuts="Control+S">
          {saving ? 'Saving…' : 'Save corrections'}
        </button>
        <button type="button" onClick={onClose}>
          Done reviewing
        </button>
      </div>
      {saveError && (
        <div className="state state-error" role="alert">
          <span>{saveError.message}</span>
          {saveError.conflict && (
            <button type="button" onClick={load}>
              Reload
            </button>
          )}
        </div>
      )}
      {photos.length > 1 && (
        <ul className="review-photo-list" aria-label="Photos">
          {photos.map((p, i) => {
            const k = photoKey(p.scene, p.image);
            return (
              <li key={k}>
                <button type="button" aria-pressed={k === activeKey} onClick={() => {
                    store.getState().select(null);
                    setActive(k);
                  }}>
                  Photo {i + 1}
                  {changed.includes(k) ? ' •' : ''}
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <div className="review-grid">
        <ReviewPhoto
          key={activeKey}
          store={store}
          photo={photo}
          index={photos.indexOf(photo)}
          view={views[activeKey!] ?? null}
          onView={(v) => setView(activeKey!, v)}
          zoomControl={zoom}
          drawing={drawing}
          onDrawn={() => {
            setDrawing(false);
            setPicking(true);
          }}
          nameOf={nameOf}
          colourOf={colourOf}
        />
        <div className="review-side">
          <section className="review-box" aria-label="Selected box" aria-live="polite">
            {box ? (
              <>
                <p>
                  <span className="swatch" style={{ background: colourOf(box.sku_id) }} aria-hidden="true" /> <strong>{nameOf(box.sku_id, box)}</strong>
                  {accepted[acceptKey(selected!)] && <span className="badge badge-ok">accepted</span>}
                </p>
                <p className="muted">
                  {box.origin
                    ? `${box.origin.source === 'model' ? 'Found by the model' : 'Drawn by a reviewer'}: detection ${box.origin.score.toFixed(2)}, match ${box.origin.sku_score.toFixed(2)}`
                    : 'Drawn now, not saved yet'}
                </p>
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
                    key={`${selected!.photo}#${selected!.box}`}
                    current={box.sku_id}
                    currentName={box.sku_id ? nameOf(box.sku_id) : null}
                    suggestions={suggestions}
                    nameOf={(sku) => nameOf(sku)}
                    onPick={(sku) => {
                      store.getState().relabel(selected!.photo, selected!.box, sku);
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

          <section aria-labelledby="review-counts-title">
            <h4 id="review-counts-title">Counts as corrected</h4>
            <FacingTable label="Counts as corrected" rows={counts} nameOf={(sku) => (sku ? nameOf(sku) : 'Unknown products')} colourOf={colourOf} before={before} />
          </section>

          <section aria-labelledby="review-todo-title">
            <h4 id="review-todo-title">Reported recognition errors</h4>
            {todo.length === 0 ? (
              <p className="muted">None reported for this scene.</p>
            ) : (
              <ul className="review-todo" aria-label="Recognition errors to check">
                {todo.map((m) => (
                  <li key={m.id}>
                    <strong>{nameOf(m.sku_gid)}</strong>
                    {m.message ? `: ${m.message}` : ''} <span className="muted">({new Date(m.created_date).toLocaleString()})</span>
                  </li>
                ))}
              </ul>
            )}
          </section>

          <details className="review-keys">
            <summary>Keyboard shortcuts</summary>
            <dl>
              <dt>N / P</dt>
              <dd>next / previous box</dd>
              <dt>A or Enter</dt>
              <dd>accept the box, go to the next</dd>
              <dt>C</dt>
              <dd>change its product</dd>
              <dt>U</dt>
              <dd>unknown product, on purpose</dd>
              <dt>Delete</dt>
              <dd>not a product (remove the box)</dd>
              <dt>D</dt>
              <dd>draw a box (drag on the photo)</dd>
              <dt>Ctrl+Z / Ctrl+Shift+Z</dt>
              <dd>undo / redo</dd>
              <dt>Ctrl+S</dt>
              <dd>save</dd>
              <dt>+ / − / 0</dt>
              <dd>zoom in / out / fit (or the wheel; drag the photo to pan)</dd>
              <dt>Esc</dt>
              <dd>stop drawing, close the picker, unselect</dd>
            </dl>
          </details>
        </div>
      </div>
    </div>
  );
}
