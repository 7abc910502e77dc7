// Asks before deleting a master-data record, and shows the API's answer if it refuses.
import { deleteOne } from '../api/endpoints';
import { useSession } from '../stores/session';
import { Dialog } from './Dialog';
import { useSubmission } from './useSubmission';

export function ConfirmDelete(props: {
  collection: Parameters<typeof deleteOne>[1];
  record: { id: string; name?: string };
  noun: string;
  onDone(): void;
  onCancel(): void;
}) {
  const api = useSession((s) => s.api);
  const { busy, error, submit } = useSubmission();
  return (
    <Dialog title={`Delete ${props.noun}`} onClose={props.onCancel}>
      <p>
        Delete {props.noun} “{props.record.name ?? props.record.id}”?
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
            const ok = await submit(() => deleteOne(api, props.collection, props.record.id).then(() => true));
            if (ok) props.onDone();
          }}
        >
          Delete
        </button>
      </div>
    </Dialog>
  );
}
