// Shown when the page has no token (a browser on the headless server without the #token link).
import { useState } from 'react';
import { TextField } from '../../components/Field';

export function ApiKeyScreen({ rejected, onKey }: { rejected: boolean; onKey(key: string): void }) {
  const [key, setKey] = useState('');
  return (
    <main className="login" aria-labelledby="login-title">
      <h1 id="login-title">Shelf Audit</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (key.trim()) onKey(key.trim());
        }}
      >
        <p>Enter an API key of this server to continue.</p>
        <TextField
          label="API key"
          type="password"
          autoComplete="off"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          errors={rejected ? ['This key was not accepted. Check it and try again.'] : undefined}
          autoFocus
        />
        <button type="submit" className="primary">
          Continue
        </button>
      </form>
    </main>
  );
}
