// The price list (issue 45): every price with its SKU, currency, shop and days, filtered and sorted by
// the server; a price added or edited in a form (the server's messages shown at their fields, an
// overlap with another price above the form); a CSV or JSON file imported whole or not at all, each
// refused row listed with its line and what is wrong with it.
import { useRef, useState } from 'react';
import { createPrice, deletePrice, importPriceFile, priceSource, updatePrice } from '../../api/endpoints';
import { ApiError, describeError } from '../../api/errors';
import type { ImportFailure, Price, PriceBody } from '../../api/types';
import { ConfirmDelete } from '../../components/ConfirmDelete';
import { Dialog } from '../../components/Dialog';
import { TextField } from '../../components/Field';
import { FormActions } from '../../components/FormActions';
import { FormError } from '../../components/FormError';
import { SkuPickerField } from '../../components/SkuPickerField';
import { Empty } from '../../components/StateMessage';
import { DataTable } from '../../components/table/DataTable';
import { useSubmission } from '../../components/useSubmission';
import { useSkus } from '../../stores/skuDirectory';
import { useSession } from '../../stores/session';
import { importRowLines } from './importRows';

function SkuName({ id }: { id: string }) {
  const sku = useSkus([id]).get(id);
  return <>{sku?.name ?? id}</>;
}

export function PricesScreen() {
  const api = useSession((s) => s.api);
  const [version, setVersion] = useState(0);
  const [sku, setSku] = useState('');
  const [shop, setShop] = useState('');
  const [editing, setEditing] = useState<Price | 'new' | null>(null);
  const [removing, setRemoving] = useState<Price | null>(null);
  const [imported, setImported] = useState<{ ok: string } | { error: string; rows: string[] } | null>(null);
  const [importing, setImporting] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);

  async function importFile(file: File) {
    setImporting(true);
    setImported(null);
    try {
      const summary = await importPriceFile(api, file, file.name);
      const created = summary.created.price_list ?? 0;
      const updated = summary.updated.price_list ?? 0;
      setImported({ ok: `Imported ${file.name}: ${created} new price${created === 1 ? '' : 's'}, ${updated} updated.` });
      setVersion((v) => v + 1);
    } catch (e) {
      const failures = e instanceof ApiError ? ((e.body as { failures?: ImportFailure[] } | undefined)?.failures ?? []) : [];
      setImported({ error: `${file.name} was not imported: ${describeError(e)}`, rows: importRowLines(failures, file.name.toLowerCase().endsWith('.csv')) });
    } finally {
      setImporting(false);
      if (fileInput.current) fileInput.current.value = '';
    }
  }

  return (
    <section aria-labelledby="prices-title">
      <header className="screen-header">
        <h2 id="prices-title">Prices</h2>
        <div className="screen-actions">
          <label className="button">
            {importing ? 'Importing…' : 'Import file'}
            <input
              ref={fileInput}
              type="file"
              accept=".csv,.json,text/csv,application/json"
              aria-label="Import a price list file (CSV or JSON)"
              hidden
              disabled={importing}
              onChange={(e) => {
                const file = e.target.files?.[0];
                if (file) void importFile(file);
              }}
            />
          </label>
          <button type="button" className="primary" onClick={() => setEditing('new')}>
            New price
          </button>
        </div>
      </header>
      <p className="hint">
        A CSV has the header <code>sku,price,currency,shop,valid_from,valid_to</code> (an empty shop: every shop; an empty valid_to: until
        further notice); a JSON file is a list of such rows or <code>{'{"price_list": [...]}'}</code>. A file with any bad row changes nothing.
      </p>
      {imported && 'ok' in imported && (
        <p className="notice" role="status">
          {imported.ok}
        </p>
      )}
      {imported && 'error' in imported && (
        <div className="form-error import-errors" role="alert">
          <p>{imported.error}</p>
          {imported.rows.length > 0 && (
            <ul aria-label="Refused rows">
              {imported.rows.map((r) => (
                <li key={r}>{r}</li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div className="filters">
        <SkuPickerField label="SKU filter" value={sku} onChange={setSku} />
        {sku && (
          <button type="button" onClick={() => setSku('')}>
            All SKUs
          </button>
        )}
        <TextField label="Shop filter" value={shop} onChange={(e) => setShop(e.target.value)} placeholder="Every shop" />
      </div>
      <DataTable<Price>
        label="Prices"
        source={priceSource(api, { ...(sku ? { sku } : {}), ...(shop.trim() ? { shop: shop.trim() } : {}) }, version)}
        rowKey={(r) => r.id}
        initialSort="valid_from"
        columns={[
          { key: 'sku', label: 'SKU', value: (r) => r.sku, render: (r) => <SkuName id={r.sku} /> },
          { key: 'price', label: 'Price', value: (r) => r.price, render: (r) => <span className="money">{r.price}</span> },
          { key: 'currency', label: 'Currency', value: (r) => r.currency },
          { key: 'shop', label: 'Shop', value: (r) => r.shop, render: (r) => r.shop ?? <em>every shop</em> },
          { key: 'valid_from', label: 'From', value: (r) => r.valid_from },
          { key: 'valid_to', label: 'To', value: (r) => r.valid_to, render: (r) => r.valid_to ?? <em>open-ended</em> },
        ]}
        actions={(r) => (
          <>
            <button type="button" onClick={() => setEditing(r)} aria-label={`Edit price ${r.id}`}>
              Edit
            </button>
            <button type="button" onClick={() => setRemoving(r)} aria-label={`Delete price ${r.id}`}>
              Delete
            </button>
          </>
        )}
        empty={<Empty>No prices yet. Add one, or import a price list file.</Empty>}
      />
      {editing && (
        <PriceForm
          record={editing === 'new' ? null : editing}
          onCancel={() => setEditing(null)}
          onDone={() => {
            setEditing(null);
            setVersion((v) => v + 1);
          }}
        />
      )}
      {removing && (
        <ConfirmDelete
          noun="price"
          record={{ id: removing.id }}
          question={`Delete the price ${removing.price} ${removing.currency} from ${removing.valid_from}${removing.shop ? ` in shop ${removing.shop}` : ''}?`}
          remove={(api) => deletePrice(api, removing.id)}
          onCancel={() => setRemoving(null)}
          onDone={() => {
            setRemoving(null);
            setVersion((v) => v + 1);
          }}
        />
      )}
    </section>
  );
}

const FIELDS = ['sku', 'price', 'currency', 'shop', 'valid_from', 'valid_to'];

function PriceForm(props: { record: Price | null; onCancel(): void; onDone(): void }) {
  const api = useSession((s) => s.api);
  const r = props.record;
  const [sku, setSku] = useState(r?.sku ?? '');
  const [price, setPrice] = useState(r?.price ?? '');
  const [currency, setCurrency] = useState(r?.currency ?? 'EUR');
  const [shop, setShop] = useState(r?.shop ?? '');
  const [from, setFrom] = useState(r?.valid_from ?? new Date().toISOString().slice(0, 10));
  const [to, setTo] = useState(r?.valid_to ?? '');
  const { busy, error, fieldErrors, submit } = useSubmission();
  return (
    <Dialog title={r ? 'Edit price' : 'New price'} onClose={props.onCancel}>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          // A decimal comma typed by hand is the point the API writes.
          const body: Partial<PriceBody> = {
            sku,
            price: price.trim().replace(',', '.'),
            currency: currency.trim().toUpperCase(),
            shop: shop.trim() || null,
            valid_from: from,
            valid_to: to || null,
          };
          const ok = await submit(() => (r ? updatePrice(api, r.id, body) : createPrice(api, body)));
          if (ok !== undefined) props.onDone();
        }}
      >
        <FormError error={error} fieldErrors={fieldErrors} shownFields={FIELDS} />
        <SkuPickerField label="SKU" value={sku} onChange={setSku} errors={fieldErrors.sku} />
        <TextField label="Price" value={price} onChange={(e) => setPrice(e.target.value)} errors={fieldErrors.price} inputMode="decimal" placeholder="1.99" autoFocus />
        <TextField label="Currency" value={currency} onChange={(e) => setCurrency(e.target.value)} errors={fieldErrors.currency} maxLength={3} />
        <TextField label="Shop" value={shop} onChange={(e) => setShop(e.target.value)} errors={fieldErrors.shop} hint="Blank: every shop without a price of its own." />
        <TextField label="Valid from" type="date" value={from} onChange={(e) => setFrom(e.target.value)} errors={fieldErrors.valid_from} />
        <TextField label="Valid to" type="date" value={to} onChange={(e) => setTo(e.target.value)} errors={fieldErrors.valid_to} hint="Blank: until further notice." />
        <FormActions onCancel={props.onCancel} disabled={busy} />
      </form>
    </Dialog>
  );
}

