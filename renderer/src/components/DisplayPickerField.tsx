// Choosing a display from a list that may be long: a search box that asks the server, and a select of
// what it found (the current choice always among them).
import { useState } from 'react';
import type { Display } from '../api/types';
import { useServerSearch } from '../stores/serverSearch';
import { SelectField } from './Field';

export function DisplayPickerField(props: {
  label: string;
  value: string;
  /** The chosen display's record, when the screen has read it (its name for the select). */
  current: Display | null;
  placeholder?: string;
  onChange(id: string): void;
  errors?: string[];
}) {
  const [term, setTerm] = useState('');
  const found = useServerSearch('displays', term);
  const options = found.items.map((d) => ({ value: d.id, label: d.name }));
  if (props.value && !options.some((o) => o.value === props.value)) options.unshift({ value: props.value, label: props.current?.name ?? props.value });
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
