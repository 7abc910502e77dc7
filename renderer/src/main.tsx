import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { browserCredentialEnvironment, resolveCredentials } from './api/credentials';
import { App } from './App';
import { importSavedPreferences } from './db/viewPreferences';
import { parseRoute } from './navigation/routes';
import { preloadScreen } from './navigation/screens';
import { initSession } from './stores/session';
import './styles/app.css';

initSession(resolveCredentials(browserCredentialEnvironment()));
// The screen the app opens on loads beside the shell's first render, not after it.
preloadScreen(parseRoute(window.location.hash));
// Once, in the background: table preferences an earlier version kept in IndexedDB.
void importSavedPreferences().catch(() => undefined);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
