// Choosing a record (display, planogram, brand...) from a list that may be long: a search box that asks
// the server, and a select of what it found; the current choice is always among them, named by id.
import { useState } from 'react';
import { directories, useNames, type NamedCollection } from '../stores/recordDirectory';
import { useServerSearch } from '../stores/serverSearch';
import { SelectField } from './Field';

export function RecordPickerField(props: {
  collection: NamedCollection;
  label: string;
  value: string;
  placeholder?: string;
  onChange(id: string): void;
  errors?: string[];
}) {
  const [term, setTerm] = useState('');
  const found = useServerSearch(props.collection, term, 30, (items) => directories[props.collection].getState().put(items));
  const options = found.items.map((r) => ({ value: r.id, label: r.name }));
  const chosen = props.value && !options.some((o) => o.value === props.value) ? props.value : null;
  const nameOf = useNames(props.collection, [chosen]);
  if (chosen) options.unshift({ value: chosen, label: nameOf(chosen) });
  return (
    <div className="sku-picker">
      <label>
        Find {props.label.toLocaleLowerCase()}
        <input type="search" value={term} onChange={(e) => setTerm(e.target.value)} placeholder="Name or id" />
      </label>
      <SelectField
        label={props.label}
        value={props.value}
        placeholder={props.placeholder}
        options={options}
        onChange={(e) => props.onChange(e.target.value)}
        errors={props.errors}
      />
    </div>
  );
}
