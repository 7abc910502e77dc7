import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { browserCredentialEnvironment, resolveCredentials } from './api/credentials';
import { App } from './App';
import { initSession } from './stores/session';
import './styles/app.css';

initSession(resolveCredentials(browserCredentialEnvironment()));

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
