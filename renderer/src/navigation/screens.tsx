// The screens, in a script chunk of their own (navigation/screenModules.ts) loaded after the first
// script: that one holds the shell (navigation, status bar, key screen) and the code every screen
// shares, so the first paint does not wait for the screens' code. It is asked for as the first script
// runs (preloadScreens in main.tsx), beside the shell's first render rather than after it. Not
// React.lazy: a screen that suspends is revealed at React's throttled pace (300 ms apart), on opening
// and on each first visit to a screen; here the shell waits for the chunk once, then every screen
// renders at once.
import { useEffect, useState } from 'react';

export type Screens = typeof import('./screenModules');

let loaded: Screens | undefined;
let loading: Promise<Screens> | undefined;

function loadScreens(): Promise<Screens> {
  loading ??= import('./screenModules').then(
    (m) => (loaded = m),
    (error: unknown) => {
      // A later render may try again (the server restarted, say).
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/** Starts loading the screens' code. */
export function preloadScreens(): void {
  loadScreens().catch(() => undefined);
}

/** The screens once their code is in (undefined until then), or why it could not be loaded. */
export function useScreens(): { screens: Screens | undefined; error: boolean; retry(): void } {
  const [, setVersion] = useState(0);
  const [error, setError] = useState(false);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    if (loaded) return;
    let live = true;
    loadScreens().then(
      () => live && setVersion((v) => v + 1),
      () => live && setError(true),
    );
    return () => {
      live = false;
    };
  }, [attempt]);
  return {
    screens: loaded,
    error: error && !loaded,
    retry: () => {
      setError(false);
      setAttempt((a) => a + 1);
    },
  };
}
