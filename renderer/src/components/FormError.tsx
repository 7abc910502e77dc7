import type { FieldErrors } from '../api/errors';

/** The form-level message; field messages the form shows at a field are left out of the summary. */
export function FormError({
  error,
  fieldErrors,
  shownFields,
}: {
  error: string | null;
  fieldErrors: FieldErrors;
  shownFields: readonly string[];
}) {
  if (!error) return null;
  const unshown = Object.keys(fieldErrors).filter((f) => !shownFields.includes(f));
  const hasFieldErrors = Object.keys(fieldErrors).length > 0;
  const text = hasFieldErrors
    ? unshown.length
      ? unshown.map((f) => `${f}: ${fieldErrors[f].join(' ')}`).join('; ')
      : 'Please correct the fields marked below.'
    : error;
  return (
    <p className="form-error" role="alert">
      {text}
    </p>
  );
}
