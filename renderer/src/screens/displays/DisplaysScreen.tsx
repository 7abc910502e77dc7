// Displays and what hangs off them: the planogram a display should follow and its must-have list.
import { useState } from 'react';
import { collectionSource, createOne, updateOne, type Collection } from '../../api/endpoints';
import type { Display, Mhl, Planogram } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { SelectField, TextField } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { Empty } from '../../components/StateMessage';
import { DataTable } from '../../components/table/DataTable';
import { useSubmission } from '../../components/useSubmission';
import { hrefFor } from '../../navigation/routes';
import { navigate } from '../../navigation/useRoute';
import { collectionsStore, useCollection } from '../../stores/appStores';
import { useSession } from '../../stores/session';
import { ConfirmDelete } from '../../components/ConfirmDelete';

type Editing =
  | { kind: 'displays'; record: Display | null }
  | { kind: 'planograms'; record: Planogram | null }
  | { kind: 'mhl'; record: Mhl | null };

export function DisplaysScreen() {
  const api = useSession((s) => s.api);
  const displays = useCollection('displays');
  const planograms = useCollection('planograms');
  const mhls = useCollection('mhl');
  const [editing, setEditing] = useState<Editing | null>(null);
  // The tables page on the server; a save or delete bumps the version to fetch the pages again. The
  // whole lists (small: names for the links and the form's choices) come from the collections store.
  const [version, setVersion] = useState(0);
  // Filters the server applies (`?display=`).
  const [planogramDisplay, setPlanogramDisplay] = useState('');
  const [mhlDisplay, setMhlDisplay] = useState('');
  const displayOptions = displays.items.map((d) => ({ value: d.id, label: d.name }));
  const changed = () => {
    setVersion((v) => v + 1);
    for (const c of ['displays', 'planograms', 'mhl'] as const) void collectionsStore.getState().reload(api, c);
  };
  const [deleting, setDeleting] = useState<{ kind: Collection; record: { id: string; name: string }; noun: string } | null>(null);
  const nameOf = (items: { id: string; name: string }[], id: string | null) =>
    id ? (items.find((i) => i.id === id)?.name ?? id) : '';

  const rowActions = (kind: Collection, noun: string, record: { id: string; name: string }, edit: () => void) => (
    <>
      <button type="button" onClick={edit} aria-label={`Edit ${noun} ${record.name}`}>
        Edit
      </button>
      <button
        type="button"
        className="danger"
        onClick={() => setDeleting({ kind, record, noun })}
        aria-label={`Delete ${noun} ${record.name}`}
      >
        Delete
      </button>
    </>
  );

  return (
    <section aria-labelledby="displays-title" className="displays-screen">
      <h2 id="displays-title" className="visually-hidden">
        Displays, planograms and must-have lists
      </h2>
      <section aria-labelledby="display-list-title">
        <header className="screen-header">
          <h3 id="display-list-title">Displays</h3>
          <button type="button" className="primary" onClick={() => setEditing({ kind: 'displays', record: null })}>
            New display
          </button>
        </header>
        {
          <DataTable<Display>
            label="Displays"
            source={collectionSource(api, 'displays', {}, version)}
            rowKey={(r) => r.id}
            initialSort="name"
            pageSize={8}
            columns={[
              { key: 'name', label: 'Name', value: (r) => r.name },
              {
                key: 'planogram',
                label: 'Planogram',
                value: (r) => nameOf(planograms.items, r.planogram),
                render: (r) =>
                  r.planogram ? <a href={hrefFor({ screen: 'planogram', id: r.planogram })}>{nameOf(planograms.items, r.planogram)}</a> : '—',
              },
              {
                key: 'musthavelist',
                label: 'Must-have list',
                value: (r) => nameOf(mhls.items, r.musthavelist),
                render: (r) =>
                  r.musthavelist ? <a href={hrefFor({ screen: 'mhl', id: r.musthavelist })}>{nameOf(mhls.items, r.musthavelist)}</a> : '—',
              },
            ]}
            actions={(r) => rowActions('displays', 'display', r, () => setEditing({ kind: 'displays', record: r }))}
            empty={<Empty>No displays yet. A display ties a planogram and a must-have list to a shelf.</Empty>}
          />
        }
      </section>
      <section aria-labelledby="planogram-list-title">
        <header className="screen-header">
          <h3 id="planogram-list-title">Planograms</h3>
          <button type="button" className="primary" onClick={() => setEditing({ kind: 'planograms', record: null })}>
            New planogram
          </button>
        </header>
        <DisplayFilter label="Planograms of display" value={planogramDisplay} options={displayOptions} onChange={setPlanogramDisplay} />
        {
          <DataTable<Planogram>
            label="Planograms"
            source={collectionSource(api, 'planograms', planogramDisplay ? { display: planogramDisplay } : {}, version)}
            rowKey={(r) => r.id}
            initialSort="name"
            pageSize={8}
            columns={[
              {
                key: 'name',
                label: 'Name',
                value: (r) => r.name,
                render: (r) => <a href={hrefFor({ screen: 'planogram', id: r.id })}>{r.name}</a>,
              },
              { key: 'display', label: 'Display', value: (r) => nameOf(displays.items, r.display) },
            ]}
            actions={(r) => rowActions('planograms', 'planogram', r, () => setEditing({ kind: 'planograms', record: r }))}
            empty={<Empty>No planograms yet.</Empty>}
          />
        }
      </section>
      <section aria-labelledby="mhl-list-title">
        <header className="screen-header">
          <h3 id="mhl-list-title">Must-have lists</h3>
          <button type="button" className="primary" onClick={() => setEditing({ kind: 'mhl', record: null })}>
            New must-have list
          </button>
        </header>
        <DisplayFilter label="Must-have lists of display" value={mhlDisplay} options={displayOptions} onChange={setMhlDisplay} />
        {
          <DataTable<Mhl>
            label="Must-have lists"
            source={collectionSource(api, 'mhl', mhlDisplay ? { display: mhlDisplay } : {}, version)}
            rowKey={(r) => r.id}
            initialSort="name"
            pageSize={8}
            columns={[
              {
                key: 'name',
                label: 'Name',
                value: (r) => r.name,
                render: (r) => <a href={hrefFor({ screen: 'mhl', id: r.id })}>{r.name}</a>,
              },
              { key: 'display', label: 'Display', value: (r) => nameOf(displays.items, r.display) },
            ]}
            actions={(r) => rowActions('mhl', 'must-have list', r, () => setEditing({ kind: 'mhl', record: r }))}
            empty={<Empty>No must-have lists yet.</Empty>}
          />
        }
      </section>
      {editing && <MasterDataForm editing={editing} onClose={() => setEditing(null)} onSaved={changed} />}
      {deleting && (
        <ConfirmDelete
          collection={deleting.kind}
          record={deleting.record}
          noun={deleting.noun}
          onCancel={() => setDeleting(null)}
          onDone={() => {
            setDeleting(null);
            changed();
          }}
        />
      )}
    </section>
  );
}

/** A list's `?display=` filter. */
function DisplayFilter(props: { label: string; value: string; options: { value: string; label: string }[]; onChange(id: string): void }) {
  return (
    <div className="filters">
      <SelectField label={props.label} value={props.value} options={props.options} placeholder="All displays" onChange={(e) => props.onChange(e.target.value)} />
    </div>
  );
}

const NOUNS = { displays: 'display', planograms: 'planogram', mhl: 'must-have list' } as const;

function MasterDataForm({ editing, onClose, onSaved }: { editing: Editing; onClose(): void; onSaved(): void }) {
  const api = useSession((s) => s.api);
  const displays = useCollection('displays');
  const planograms = useCollection('planograms');
  const mhls = useCollection('mhl');
  const record = editing.record;
  const [name, setName] = useState(record?.name ?? '');
  const [display, setDisplay] = useState(record && 'display' in record ? (record.display ?? '') : '');
  const [planogram, setPlanogram] = useState(record && 'planogram' in record ? (record.planogram ?? '') : '');
  const [mhl, setMhl] = useState(record && 'musthavelist' in record ? (record.musthavelist ?? '') : '');
  const { busy, error, fieldErrors, submit } = useSubmission();
  const noun = NOUNS[editing.kind];
  const options = (items: { id: string; name: string }[]) => items.map((i) => ({ value: i.id, label: i.name }));

  async function save() {
    const id = record?.id ?? crypto.randomUUID();
    const body: Record<string, unknown> = { name };
    if (editing.kind === 'displays') {
      body.planogram = planogram || null;
      body.musthavelist = mhl || null;
    } else body.display = display || null;
    if (record) await updateOne(api, editing.kind, id, body);
    else await createOne(api, editing.kind, { id, ...body });
    return id;
  }

  return (
    <Dialog title={`${record ? 'Edit' : 'New'} ${noun}`} onClose={onClose}>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          const id = await submit(save);
          if (id === undefined) return;
          onSaved();
          onClose();
          if (!record && editing.kind === 'planograms') navigate({ screen: 'planogram', id });
          if (!record && editing.kind === 'mhl') navigate({ screen: 'mhl', id });
        }}
      >
        <FormError error={error} fieldErrors={fieldErrors} shownFields={['name', 'display', 'planogram', 'musthavelist']} />
        <TextField label="Name" value={name} onChange={(e) => setName(e.target.value)} errors={fieldErrors.name} autoFocus />
        {editing.kind === 'displays' ? (
          <>
            <SelectField
              label="Planogram"
              value={planogram}
              options={options(planograms.items)}
              placeholder="The newest planogram for this display"
              onChange={(e) => setPlanogram(e.target.value)}
              errors={fieldErrors.planogram}
            />
            <SelectField
              label="Must-have list"
              value={mhl}
              options={options(mhls.items)}
              placeholder="The newest must-have list for this display"
              onChange={(e) => setMhl(e.target.value)}
              errors={fieldErrors.musthavelist}
            />
          </>
        ) : (
          <SelectField
            label="Display"
            value={display}
            options={options(displays.items)}
            onChange={(e) => setDisplay(e.target.value)}
            errors={fieldErrors.display}
          />
        )}
        <div className="form-actions">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            Save
          </button>
        </div>
      </form>
    </Dialog>
  );
}
