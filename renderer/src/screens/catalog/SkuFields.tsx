// The SKU form, used to create an SKU and on the SKU page.
import type { FieldErrors } from '../../api/errors';
import { TextField } from '../../components/Field';
import { RecordPickerField } from '../../components/RecordPickerField';
import { SIZE_FIELDS, type SkuFormValues } from './skuForm';

export const SKU_FIELDS = ['name', 'cid', 'ean13', 'brand', 'category', 'manufacturer', ...SIZE_FIELDS, 'attributes'];

const SIZE_LABEL: Record<(typeof SIZE_FIELDS)[number], string> = {
  size_x_mm: 'Width (mm)',
  size_y_mm: 'Height (mm)',
  size_z_mm: 'Depth (mm)',
};

export function SkuFields({
  values,
  onChange,
  errors,
}: {
  values: SkuFormValues;
  onChange(values: SkuFormValues): void;
  errors: FieldErrors;
}) {
  const set = (patch: Partial<SkuFormValues>) => onChange({ ...values, ...patch });
  return (
    <>
      <fieldset>
        <legend>Product</legend>
        <TextField label="Name" value={values.name} onChange={(e) => set({ name: e.target.value })} errors={errors.name} />
        <div className="field-row">
          <RecordPickerField collection="brands" label="Brand" value={values.brand} onChange={(brand) => set({ brand })} errors={errors.brand} />
          <RecordPickerField collection="categories" label="Category" value={values.category} onChange={(category) => set({ category })} errors={errors.category} />
          <RecordPickerField collection="manufacturers" label="Manufacturer" value={values.manufacturer} onChange={(manufacturer) => set({ manufacturer })} errors={errors.manufacturer} />
        </div>
      </fieldset>
      <fieldset>
        <legend>Codes</legend>
        <div className="field-row">
          <TextField label="Customer ID (cid)" value={values.cid} onChange={(e) => set({ cid: e.target.value })} errors={errors.cid} />
          <TextField
            label="EAN-13"
            value={values.ean13}
            inputMode="numeric"
            onChange={(e) => set({ ean13: e.target.value })}
            errors={errors.ean13}
          />
        </div>
      </fieldset>
      <fieldset>
        <legend>Size</legend>
        <div className="field-row">
          {SIZE_FIELDS.map((f) => (
            <TextField
              key={f}
              label={SIZE_LABEL[f]}
              value={values[f]}
              inputMode="decimal"
              onChange={(e) => set({ [f]: e.target.value })}
              errors={errors[f]}
            />
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>Attributes</legend>
        {errors.attributes && <p className="field-error">{errors.attributes.join(' ')}</p>}
        {values.attributes.map((a, i) => (
          <div className="field-row attribute-row" key={i}>
            <TextField
              label={`Attribute ${i + 1} name`}
              value={a.key}
              onChange={(e) =>
                set({ attributes: values.attributes.map((x, j) => (j === i ? { ...x, key: e.target.value } : x)) })
              }
            />
            <TextField
              label={`Attribute ${i + 1} value`}
              value={a.value}
              onChange={(e) =>
                set({ attributes: values.attributes.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)) })
              }
            />
            <button
              type="button"
              aria-label={`Remove attribute ${i + 1}`}
              onClick={() => set({ attributes: values.attributes.filter((_, j) => j !== i) })}
            >
              Remove
            </button>
          </div>
        ))}
        <button type="button" onClick={() => set({ attributes: [...values.attributes, { key: '', value: '' }] })}>
          Add attribute
        </button>
      </fieldset>
    </>
  );
}
