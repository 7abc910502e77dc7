import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { browserCredentialEnvironment, resolveCredentials } from './api/credentials';
import { App } from './App';
import { preloadTablePreferences } from './db/viewPreferences';
import { initSession } from './stores/session';
import './styles/app.css';

initSession(resolveCredentials(browserCredentialEnvironment()));
// IndexedDB opens while the first screen renders, not when its first table asks.
preloadTablePreferences();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
