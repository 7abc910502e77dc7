// The review's toolbar: undo and redo, draw mode, zoom, what is unsaved, Save, and leaving review.
import type { ReviewStore } from './reviewStore';
import type { ReviewTools } from './useReviewTools';

export function ReviewToolbar({
  store,
  tools,
  changed,
  saving,
  onSave,
  onClose,
}: {
  store: ReviewStore;
  tools: Pick<ReviewTools, 'drawing' | 'setDrawing' | 'zoom'>;
  /** How many photos have unsaved corrections. */
  changed: number;
  saving: boolean;
  onSave(): void;
  onClose(): void;
}) {
  const canUndo = store((s) => s.past.length > 0);
  const canRedo = store((s) => s.future.length > 0);
  const { drawing, setDrawing, zoom } = tools;
  return (
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
        {changed > 0 ? `${changed} photo${changed === 1 ? '' : 's'} with unsaved corrections` : 'No unsaved corrections'}
      </span>
      <button type="button" className="primary" onClick={onSave} disabled={changed === 0 || saving} aria-keyshortcuts="Control+S">
        {saving ? 'Saving…' : 'Save corrections'}
      </button>
      <button type="button" onClick={onClose}>
        Done reviewing
      </button>
    </div>
  );
}
