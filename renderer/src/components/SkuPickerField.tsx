// Choosing an SKU from a catalog too big for one list: a search box that asks the server, and a
// select of what it found (the current choice always among them).
import { useState } from 'react';
import { useSkuSearch, useSkus } from '../stores/skuDirectory';
import { SelectField } from './Field';

export function SkuPickerField(props: { label: string; value: string; onChange(id: string): void; errors?: string[] }) {
  const [term, setTerm] = useState('');
  const found = useSkuSearch(term);
  const current = useSkus(props.value ? [props.value] : []).get(props.value);
  const options = found.items.map((s) => ({ value: s.id, label: s.name }));
  if (props.value && !options.some((o) => o.value === props.value)) options.unshift({ value: props.value, label: current?.name ?? props.value });
  return (
    <div className="sku-picker">
      <label>
        Find {props.label.toLocaleLowerCase()}
        <input type="search" value={term} onChange={(e) => setTerm(e.target.value)} placeholder="Name, customer id or EAN" />
      </label>
      <SelectField label={props.label} value={props.value} options={options} onChange={(e) => props.onChange(e.target.value)} errors={props.errors} />
    </div>
  );
}
