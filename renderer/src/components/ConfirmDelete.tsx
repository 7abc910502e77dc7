// Asks before deleting a master-data record, and shows the API's answer if it refuses.
import type { ReactNode } from 'react';
import type { ApiClient } from '../api/client';
import { deleteOne } from '../api/endpoints';
import { useSession } from '../stores/session';
import { Dialog } from './Dialog';
import { useSubmission } from './useSubmission';

/** What is deleted: a record of a master-data collection, or anything a function deletes (a price). */
type Target = { collection: Parameters<typeof deleteOne>[1] } | { remove(api: ApiClient): Promise<unknown> };

export function ConfirmDelete(
  props: Target & {
    record: { id: string; name?: string };
    noun: string;
    /** The question asked, when the record's name does not say enough. */
    question?: ReactNode;
    onDone(): void;
    onCancel(): void;
  },
) {
  const api = useSession((s) => s.api);
  const { busy, error, submit } = useSubmission();
  return (
    <Dialog title={`Delete ${props.noun}`} onClose={props.onCancel}>
      <p>
        {props.question ?? `Delete ${props.noun} “${props.record.name ?? props.record.id}”?`}
      </p>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <div className="form-actions">
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className="danger"
          disabled={busy}
          onClick={async () => {
            const remove = () => ('remove' in props ? props.remove(api) : deleteOne(api, props.collection, props.record.id));
            const ok = await submit(() => remove().then(() => true));
            if (ok) props.onDone();
          }}
        >
          Delete
        </button>
      </div>
    </Dialog>
  );
}
