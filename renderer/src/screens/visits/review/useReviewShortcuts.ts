// The review's keyboard shortcuts (listed by ShortcutHelp). They work anywhere on the screen except
// while typing: the picker's search has its own keys.
import { useEffect } from 'react';
import type { ReviewStore } from './reviewStore';
import type { ReviewTools } from './useReviewTools';

export function useReviewShortcuts(store: ReviewStore, tools: ReviewTools, activeKey: string | null, save: () => Promise<void>) {
  const { drawing, picking, setDrawing, setPicking, zoom, acceptAndNext, removeSelected, unknownSelected } = tools;
  // Added again on every render: the handler reads this render's tools and photo.
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
}
