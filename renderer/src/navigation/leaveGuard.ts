// Screens holding unsaved work (the review's corrections) ask before the user leaves them: moving to
// another screen (the hash changes) asks with a confirm, closing or reloading the window with the
// browser's own beforeunload prompt.

/** Answers the question to ask before leaving, or null when there is nothing to lose. */
export type LeaveCheck = () => string | null;

const checks = new Set<LeaveCheck>();

function pendingMessage(): string | null {
  for (const check of checks) {
    const message = check();
    if (message) return message;
  }
  return null;
}

function onBeforeUnload(event: BeforeUnloadEvent) {
  if (!pendingMessage()) return;
  event.preventDefault();
  // Older engines show the prompt only when returnValue is set.
  event.returnValue = '';
}

/** Registers a check while a screen is shown; the answer unregisters it. */
export function guardLeaving(check: LeaveCheck): () => void {
  checks.add(check);
  if (checks.size === 1) window.addEventListener('beforeunload', onBeforeUnload);
  return () => {
    checks.delete(check);
    if (checks.size === 0) window.removeEventListener('beforeunload', onBeforeUnload);
  };
}

/** True when the user may leave the current screen: nothing unsaved, or they confirmed. */
export function mayLeave(ask: (message: string) => boolean = (m) => window.confirm(m)): boolean {
  const message = pendingMessage();
  return message === null || ask(message);
}
