// The thresholds of the photo checks (docs/recognition.md, "Photo quality"): each shown with what it
// means, saved together; a value the server refuses is shown under its field.
import { useCallback, useEffect, useState } from 'react';
import { getQualityThresholds, saveQualityThresholds } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import type { QualityThresholds } from '../../api/types';
import { TextField } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { ErrorMessage } from '../../components/StateMessage';
import { useSubmission } from '../../components/useSubmission';
import { useSession } from '../../stores/session';

const FIELDS: { name: keyof QualityThresholds; label: string; hint: string }[] = [
  { name: 'min_sharpness', label: 'Least sharpness', hint: 'Below it a photo is blurred' },
  { name: 'min_brightness', label: 'Least brightness (0-255)', hint: 'Below it a photo is too dark' },
  { name: 'max_brightness', label: 'Greatest brightness (0-255)', hint: 'Above it a photo is overexposed' },
  { name: 'max_clipped', label: 'Greatest share burnt out', hint: 'Share of pixels at white' },
  { name: 'max_glare', label: 'Greatest glare patch', hint: 'Share of the photo' },
  { name: 'max_tilt', label: 'Greatest tilt (degrees)', hint: 'Angle of the shelf edges' },
  { name: 'max_convergence', label: 'Greatest perspective (degrees)', hint: 'Angle between top and bottom shelf edges' },
  { name: 'min_product_size', label: 'Least product size', hint: 'Square root of a product\'s area over the photo\'s; below it, too far' },
  { name: 'max_product_height', label: 'Greatest product height', hint: 'Share of the photo height; above it, too close' },
  { name: 'max_cut_products', label: 'Greatest share of products cut', hint: 'At the top or bottom edge' },
  { name: 'min_edge_room', label: 'Least room above or below the products', hint: 'In product heights; below it, too close' },
  { name: 'max_side_cut', label: 'Greatest share of shelves cut at the bay end', hint: 'First and last photo of a scene' },
  { name: 'min_side_room', label: 'Least room beside the products at the bay end', hint: 'In product widths; first and last photo of a scene' },
  { name: 'max_duplicate_distance', label: 'Duplicate distance (bits)', hint: 'Photos this close are the same' },
  { name: 'min_overlap', label: 'Least overlap with the previous photo', hint: 'Share of the width' },
  { name: 'max_overlap', label: 'Greatest overlap with the previous photo', hint: 'Share of the width' },
];

export function PhotoQualityPanel() {
  const api = useSession((s) => s.api);
  const [values, setValues] = useState<Record<string, string> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const { busy, error: saveError, fieldErrors, submit } = useSubmission();
  const show = (t: QualityThresholds) => setValues(Object.fromEntries(Object.entries(t).map(([k, v]) => [k, String(v)])));
  const load = useCallback(() => {
    setError(null);
    getQualityThresholds(api).then(show, (e) => setError(describeError(e)));
  }, [api]);
  useEffect(load, [load]);

  return (
    <section aria-labelledby="photo-quality-title">
      <h3 id="photo-quality-title">Photo quality</h3>
      <p className="muted">Each photo is checked when it is added; these limits decide when it is marked check or retake.</p>
      {error && <ErrorMessage message={error} onRetry={load} />}
      {values && (
        <form
          aria-label="Photo quality thresholds"
          className="inline-form"
          noValidate
          onSubmit={async (e) => {
            e.preventDefault();
            setSaved(false);
            // Sent as typed: the server says which value is out of range.
            const body = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.trim() === '' ? Number.NaN : Number(v)]));
            const next = await submit(() => saveQualityThresholds(api, body as Partial<QualityThresholds>));
            if (next) {
              show(next);
              setSaved(true);
            }
          }}
        >
          <FormError error={saveError} fieldErrors={fieldErrors} shownFields={FIELDS.map((f) => f.name)} />
          {FIELDS.map((f) => (
            <TextField
              key={f.name}
              label={f.label}
              hint={f.hint}
              inputMode="decimal"
              value={values[f.name] ?? ''}
              onChange={(e) => setValues({ ...values, [f.name]: e.target.value })}
              errors={fieldErrors[f.name]}
            />
          ))}
          <button type="submit" className="primary" disabled={busy}>
            Save thresholds
          </button>
          {saved && <span role="status">Thresholds saved.</span>}
        </form>
      )}
    </section>
  );
}
