// The loading, empty and error states every screen shows the same way.
import type { ReactNode } from 'react';

export function Loading({ what }: { what: string }) {
  return (
    <p className="state state-loading" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return (
    <p className="state state-empty" role="status">
      {children}
    </p>
  );
}

export function ErrorMessage({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div className="state state-error" role="alert">
      <span>{message}</span>
      {onRetry && (
        <button type="button" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}

/** A saved copy is on screen because the server could not be reached. */
export function StaleNotice({ error }: { error: string }) {
  return (
    <p className="state state-stale" role="status">
      Showing the saved copy: {error}
    </p>
  );
}
