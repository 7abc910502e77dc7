// The list of the review's keyboard shortcuts (useReviewShortcuts), folded away until asked for.
export function ShortcutHelp() {
  return (
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
  );
}
