// A must-have list: products that must be on the shelf, each with up to six alternatives that count
// as the product being there.
import { useCallback, useEffect, useState } from 'react';
import { createOne, deleteOne, getOne, listAll, updateOne } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import { MHL_ALTERNATIVES, type Mhl, type MhlRecord } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { TextField } from '../../components/Field';
import { SkuPickerField } from '../../components/SkuPickerField';
import { FormError } from '../../components/FormError';
import { SkuPicture } from '../../components/SkuPicture';
import { Empty, ErrorMessage, Loading } from '../../components/StateMessage';
import { useSubmission } from '../../components/useSubmission';
import { hrefFor } from '../../navigation/routes';
import { useSession } from '../../stores/session';
import { useSkus } from '../../stores/skuDirectory';
import { FormActions } from '../../components/FormActions';

export function MhlScreen({ id }: { id: string }) {
  const api = useSession((s) => s.api);
  const [mhl, setMhl] = useState<Mhl | null>(null);
  const [records, setRecords] = useState<MhlRecord[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [editing, setEditing] = useState<MhlRecord | 'new' | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const load = useCallback(() => {
    setLoadError(null);
    Promise.all([getOne(api, 'mhl', id), listAll(api, 'mhl_record', { musthavelist: id })]).then(
      ([m, all]) => {
        setMhl(m);
        setRecords(all.filter((r) => r.musthavelist === id));
      },
      (e) => setLoadError(describeError(e)),
    );
  }, [api, id]);
  useEffect(load, [load]);

  const skus = useSkus((records ?? []).flatMap((r) => [r.sku, ...MHL_ALTERNATIVES.map((k) => r[k])].filter((s): s is string => !!s)));
  const skuName = (sku: string | null | undefined) => (sku ? (skus.get(sku)?.name ?? sku) : null);

  if (loadError) return <ErrorMessage message={loadError} onRetry={load} />;
  if (!mhl || !records) return <Loading what="must-have list" />;
  return (
    <section aria-labelledby="mhl-title">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <a href={hrefFor({ screen: 'displays' })}>Displays</a> / {mhl.name}
      </nav>
      <header className="screen-header">
        <h2 id="mhl-title">Must-have list: {mhl.name}</h2>
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          Add product
        </button>
      </header>
      {actionError && <ErrorMessage message={actionError} />}
      {records.length === 0 ? (
        <Empty>No products on this list yet.</Empty>
      ) : (
        <table aria-label="Must-have products">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Product</th>
              <th scope="col">Alternatives</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {records.map((r) => (
              <tr key={r.id}>
                <td>{r.name}</td>
                <td>
                  {r.sku ? (
                    <span className="sku-with-picture">
                      <SkuPicture sku={{ id: r.sku, name: skuName(r.sku) ?? r.sku }} size="small" /> {skuName(r.sku)}
                    </span>
                  ) : (
                    '—'
                  )}
                </td>
                <td>
                  {MHL_ALTERNATIVES.map((k) => skuName(r[k]))
                    .filter(Boolean)
                    .join(', ') || '—'}
                </td>
                <td className="row-actions">
                  <button type="button" aria-label={`Edit ${r.name}`} onClick={() => setEditing(r)}>
                    Edit
                  </button>
                  <button
                    type="button"
                    className="danger"
                    aria-label={`Delete ${r.name}`}
                    onClick={async () => {
                      setActionError(null);
                      try {
                        await deleteOne(api, 'mhl_record', r.id);
                        load();
                      } catch (e) {
                        setActionError(describeError(e));
                      }
                    }}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {editing && (
        <MhlRecordForm
          mhl={id}
          record={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            load();
          }}
        />
      )}
    </section>
  );
}

function MhlRecordForm(props: { mhl: string; record: MhlRecord | null; onClose(): void; onSaved(): void }) {
  const api = useSession((s) => s.api);
  const [name, setName] = useState(props.record?.name ?? '');
  const [sku, setSku] = useState(props.record?.sku ?? '');
  const [alternatives, setAlternatives] = useState<string[]>(MHL_ALTERNATIVES.map((k) => props.record?.[k] ?? ''));
  const { busy, error, fieldErrors, submit } = useSubmission();
  return (
    <Dialog title={props.record ? 'Edit must-have product' : 'Add must-have product'} onClose={props.onClose}>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          const body: Record<string, unknown> = { name, musthavelist: props.mhl, sku: sku || null };
          MHL_ALTERNATIVES.forEach((k, i) => (body[k] = alternatives[i] || null));
          const ok = await submit<unknown>(() =>
            props.record ? updateOne(api, 'mhl_record', props.record.id, body) : createOne(api, 'mhl_record', body),
          );
          if (ok !== undefined) props.onSaved();
        }}
      >
        <FormError error={error} fieldErrors={fieldErrors} shownFields={['name', 'sku', ...MHL_ALTERNATIVES]} />
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} errors={fieldErrors.name} />
        <SkuPickerField label="Product" value={sku} onChange={setSku} errors={fieldErrors.sku} />
        <fieldset>
          <legend>Alternatives (any one counts)</legend>
          <div className="field-grid">
            {MHL_ALTERNATIVES.map((k, i) => (
              <SkuPickerField
                key={k}
                label={`Alternative ${i + 1}`}
                value={alternatives[i]}
                onChange={(value) => setAlternatives(alternatives.map((a, j) => (j === i ? value : a)))}
                errors={fieldErrors[k]}
              />
            ))}
          </div>
        </fieldset>
        <FormActions onCancel={props.onClose} disabled={busy} />
      </form>
    </Dialog>
  );
}
