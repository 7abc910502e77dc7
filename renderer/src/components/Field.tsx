// A labelled form control with the API's messages for that field shown under it.
import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';

interface FieldShellProps {
  label: string;
  errors?: string[];
  hint?: ReactNode;
  children(props: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string }): ReactNode;
}

function FieldShell({ label, errors, hint, children }: FieldShellProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const invalid = !!errors && errors.length > 0;
  return (
    <div className={`field${invalid ? ' field-invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      {children({ id, 'aria-invalid': invalid || undefined, 'aria-describedby': invalid ? errorId : undefined })}
      {hint && <small className="field-hint">{hint}</small>}
      {invalid && (
        <p id={errorId} className="field-error">
          {errors.join(' ')}
        </p>
      )}
    </div>
  );
}

export function TextField({
  label,
  errors,
  hint,
  ...input
}: { label: string; errors?: string[]; hint?: ReactNode } & InputHTMLAttributes<HTMLInputElement>) {
  return (
    <FieldShell label={label} errors={errors} hint={hint}>
      {(a11y) => <input {...input} {...a11y} />}
    </FieldShell>
  );
}

export interface Option {
  value: string;
  label: string;
}

export function SelectField({
  label,
  errors,
  options,
  placeholder,
  ...select
}: {
  label: string;
  errors?: string[];
  options: Option[];
  placeholder?: string;
} & SelectHTMLAttributes<HTMLSelectElement>) {
  return (
    <FieldShell label={label} errors={errors}>
      {(a11y) => (
        <select {...select} {...a11y}>
          <option value="">{placeholder ?? '—'}</option>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      )}
    </FieldShell>
  );
}
