// Brands, categories and manufacturers: records with an id and a name.
import { useState } from 'react';
import { collectionSource, createOne, updateOne } from '../../api/endpoints';
import type { NamedRecord } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { TextField } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { Empty } from '../../components/StateMessage';
import { DataTable } from '../../components/table/DataTable';
import { useSubmission } from '../../components/useSubmission';
import { directories } from '../../stores/recordDirectory';
import { useSession } from '../../stores/session';
import { FormActions } from '../../components/FormActions';

export type NamedCollection = 'brands' | 'categories' | 'manufacturers';

const NOUN: Record<NamedCollection, { one: string; many: string }> = {
  brands: { one: 'brand', many: 'Brands' },
  categories: { one: 'category', many: 'Categories' },
  manufacturers: { one: 'manufacturer', many: 'Manufacturers' },
};

export function NamedRecordScreen({ collection }: { collection: NamedCollection }) {
  const noun = NOUN[collection];
  const api = useSession((s) => s.api);
  const [version, setVersion] = useState(0);
  const [editing, setEditing] = useState<NamedRecord | 'new' | null>(null);

  return (
    <section aria-labelledby="catalog-title">
      <header className="screen-header">
        <h2 id="catalog-title">{noun.many}</h2>
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          New {noun.one}
        </button>
      </header>
      {
        <DataTable<NamedRecord>
          label={noun.many}
          source={collectionSource(api, collection, {}, version)}
          rowKey={(r) => r.id}
          initialSort="name"
          columns={[
            { key: 'name', label: 'Name', value: (r) => r.name },
            { key: 'id', label: 'ID', value: (r) => r.id },
          ]}
          actions={(r) => (
            // The interface has no DELETE for catalog entries (SKUs refer to them), so none is offered.
            <button type="button" onClick={() => setEditing(r)} aria-label={`Edit ${r.name}`}>
              Edit
            </button>
          )}
          empty={<Empty>No {noun.many.toLocaleLowerCase()} yet. Create the first one.</Empty>}
        />
      }
      {editing && (
        <NamedRecordForm
          collection={collection}
          noun={noun.one}
          record={editing === 'new' ? null : editing}
          onDone={() => {
            setEditing(null);
            setVersion((v) => v + 1);
            // Other screens name them by id: they ask again for the new names.
            directories[collection].getState().clear();
          }}
          onCancel={() => setEditing(null)}
        />
      )}
    </section>
  );
}

function NamedRecordForm(props: {
  collection: NamedCollection;
  noun: string;
  record: NamedRecord | null;
  onDone(): void;
  onCancel(): void;
}) {
  const api = useSession((s) => s.api);
  const [id, setId] = useState(props.record?.id ?? '');
  const [name, setName] = useState(props.record?.name ?? '');
  const { busy, error, fieldErrors, submit } = useSubmission();
  const title = props.record ? `Edit ${props.noun}` : `New ${props.noun}`;
  return (
    <Dialog title={title} onClose={props.onCancel}>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          const body: Partial<NamedRecord> = { name };
          if (id.trim() && id !== props.record?.id) body.id = id.trim();
          const ok = await submit<unknown>(() =>
            props.record
              ? updateOne(api, props.collection, props.record.id, body)
              : createOne(api, props.collection, body),
          );
          if (ok !== undefined) props.onDone();
        }}
      >
        <FormError error={error} fieldErrors={fieldErrors} shownFields={['id', 'name']} />
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} errors={fieldErrors.name} autoFocus />
        <TextField
          label="ID"
          value={id}
          onChange={(e) => setId(e.target.value)}
          errors={fieldErrors.id}
          hint={props.record ? 'Changing it renames the record.' : 'Optional: left blank, the server assigns one.'}
        />
        <FormActions onCancel={props.onCancel} disabled={busy} />
      </form>
    </Dialog>
  );
}
