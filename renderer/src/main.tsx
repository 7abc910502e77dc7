import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { browserCredentialEnvironment, resolveCredentials } from './api/credentials';
import { App } from './App';
import { importSavedPreferences } from './db/viewPreferences';
import { preloadScreens } from './navigation/screens';
import { initSession } from './stores/session';
import './styles/app.css';

initSession(resolveCredentials(browserCredentialEnvironment()));
// The screens' code loads beside the shell's first render, not after it.
preloadScreens();
// Once, in the background: table preferences an earlier version kept in IndexedDB.
void importSavedPreferences().catch(() => undefined);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
