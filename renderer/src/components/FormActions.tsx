// A form dialog's buttons: Cancel, then the submit button, disabled while the form is being sent or
// cannot be sent yet.
export function FormActions({ onCancel, disabled, submit = 'Save' }: { onCancel(): void; disabled: boolean; submit?: string }) {
  return (
    <div className="form-actions">
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" className="primary" disabled={disabled}>
        {submit}
      </button>
    </div>
  );
}
