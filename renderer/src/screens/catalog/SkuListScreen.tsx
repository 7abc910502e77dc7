// The SKU table and the "new SKU" form; an SKU opens on its own page.
import { useState } from 'react';
import { collectionSource, createOne } from '../../api/endpoints';
import type { Sku } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { FormError } from '../../components/FormError';
import { RecordName } from '../../components/RecordName';
import { RecordPickerField } from '../../components/RecordPickerField';
import { Empty } from '../../components/StateMessage';
import { DataTable } from '../../components/table/DataTable';
import { useSubmission } from '../../components/useSubmission';
import { hrefFor } from '../../navigation/routes';
import { navigate } from '../../navigation/useRoute';
import { useSession } from '../../stores/session';
import { SkuFields, SKU_FIELDS } from './SkuFields';
import { skuBody, valuesFromSku } from './skuForm';
import { SkuPicture } from '../../components/SkuPicture';
import { FormActions } from '../../components/FormActions';

export function SkuListScreen() {
  const api = useSession((s) => s.api);
  // The catalog may hold tens of thousands of SKUs: the table asks the server for the page it shows.
  const [version, setVersion] = useState(0);
  // Filters the server applies (`?brand=`, `?category=`).
  const [brand, setBrand] = useState('');
  const [category, setCategory] = useState('');
  const [creating, setCreating] = useState(false);
  return (
    <section aria-labelledby="sku-title">
      <header className="screen-header">
        <h2 id="sku-title">SKUs</h2>
        <button type="button" className="primary" onClick={() => setCreating(true)}>
          New SKU
        </button>
      </header>
      <div className="filters">
        {/* Brands and categories searched on the server; the rows' names come by id once they are up. */}
        <RecordPickerField collection="brands" label="Brand filter" value={brand} placeholder="All brands" onChange={setBrand} />
        <RecordPickerField collection="categories" label="Category filter" value={category} placeholder="All categories" onChange={setCategory} />
      </div>
      {
        <DataTable<Sku>
          label="SKUs"
          source={collectionSource(api, 'sku', { ...(brand ? { brand } : {}), ...(category ? { category } : {}) }, version)}
          rowKey={(r) => r.id}
          initialSort="name"
          columns={[
            {
              key: 'picture',
              label: 'Picture',
              sortable: false,
              value: () => null,
              render: (r) => <SkuPicture sku={r} size="small" />,
            },
            {
              key: 'name',
              label: 'Name',
              value: (r) => r.name,
              render: (r) => <a href={hrefFor({ screen: 'sku', id: r.id })}>{r.name}</a>,
            },
            { key: 'brand', label: 'Brand', sortable: false, value: (r) => r.brand, render: (r) => <RecordName collection="brands" id={r.brand} /> },
            {
              key: 'category',
              label: 'Category',
              sortable: false,
              value: (r) => r.category,
              render: (r) => <RecordName collection="categories" id={r.category} />,
            },
            { key: 'cid', label: 'Customer ID', value: (r) => r.cid },
            { key: 'ean13', label: 'EAN-13', value: (r) => r.ean13 },
          ]}
          empty={<Empty>No SKUs yet. Create one, or import master data.</Empty>}
        />
      }
      {creating && (
        <NewSkuDialog
          onCancel={() => setCreating(false)}
          onCreated={(id) => {
            setCreating(false);
            setVersion((v) => v + 1);
            if (id) navigate({ screen: 'sku', id });
          }}
        />
      )}
    </section>
  );
}

function NewSkuDialog({ onCancel, onCreated }: { onCancel(): void; onCreated(id: string | null): void }) {
  const api = useSession((s) => s.api);
  const [values, setValues] = useState(valuesFromSku(null));
  const { busy, error, fieldErrors, submit } = useSubmission();
  return (
    <Dialog title="New SKU" onClose={onCancel}>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          // The SKU page needs the new id; the interface lets the client choose it.
          const id = crypto.randomUUID();
          const created = await submit(() => createOne(api, 'sku', { id, ...skuBody(values) }));
          if (created !== undefined) onCreated(created?.id ?? id);
        }}
      >
        <FormError error={error} fieldErrors={fieldErrors} shownFields={SKU_FIELDS} />
        <SkuFields values={values} onChange={setValues} errors={fieldErrors} />
        <FormActions onCancel={onCancel} disabled={busy} submit="Create SKU" />
      </form>
    </Dialog>
  );
}
