// Runs a form's save and keeps what the API said about it: a message for the form and messages per
// field, so each is shown where it belongs.
import { useState } from 'react';
import { ApiError, describeError, type FieldErrors } from '../api/errors';

export function useSubmission() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<FieldErrors>({});

  async function submit<T>(action: () => Promise<T>): Promise<T | undefined> {
    setBusy(true);
    setError(null);
    setFieldErrors({});
    try {
      return await action();
    } catch (e) {
      setError(describeError(e));
      if (e instanceof ApiError) setFieldErrors(e.fieldErrors);
      return undefined;
    } finally {
      setBusy(false);
    }
  }

  return { busy, error, fieldErrors, submit, clear: () => (setError(null), setFieldErrors({})) };
}
