import { useSyncExternalStore } from 'react';
import { mayLeave } from './leaveGuard';
import { hrefFor, parseRoute, type Route } from './routes';

// One hashchange listener for the whole app, so a screen with unsaved work is asked once per move: when
// the user declines, the address goes back to the screen they are on and nothing re-renders.
let shownHash = typeof window === 'undefined' ? '' : window.location.hash;
const listeners = new Set<() => void>();

function onHashChange() {
  const hash = window.location.hash;
  if (hash === shownHash) return;
  if (!mayLeave()) {
    // replaceState fires no hashchange: the address shows the current screen again.
    window.history.replaceState(window.history.state, '', shownHash || window.location.pathname + window.location.search);
    return;
  }
  shownHash = hash;
  for (const listener of listeners) listener();
}

function subscribe(callback: () => void) {
  if (listeners.size === 0) {
    shownHash = window.location.hash;
    window.addEventListener('hashchange', onHashChange);
  }
  listeners.add(callback);
  return () => {
    listeners.delete(callback);
    if (listeners.size === 0) window.removeEventListener('hashchange', onHashChange);
  };
}

export function useRoute(): Route {
  const hash = useSyncExternalStore(subscribe, () => shownHash);
  return parseRoute(hash);
}

export function navigate(route: Route): void {
  window.location.hash = hrefFor(route);
}
