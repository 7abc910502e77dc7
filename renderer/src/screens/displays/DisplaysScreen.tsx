// Displays and what hangs off them: the planogram a display should follow and its must-have list.
import { useState, type ReactNode } from 'react';
import { collectionSource, createOne, updateOne, type Collection } from '../../api/endpoints';
import type { Display, Mhl, Planogram } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { TextField } from '../../components/Field';
import { FormError } from '../../components/FormError';
import { RecordName } from '../../components/RecordName';
import { RecordPickerField } from '../../components/RecordPickerField';
import { Empty } from '../../components/StateMessage';
import { DataTable } from '../../components/table/DataTable';
import type { ServerSource } from '../../components/table/serverPage';
import { useSubmission } from '../../components/useSubmission';
import { hrefFor } from '../../navigation/routes';
import { navigate } from '../../navigation/useRoute';
import { directories } from '../../stores/recordDirectory';
import { useSession } from '../../stores/session';
import { ConfirmDelete } from '../../components/ConfirmDelete';
import { FormActions } from '../../components/FormActions';

type Editing =
  | { kind: 'displays'; record: Display | null }
  | { kind: 'planograms'; record: Planogram | null }
  | { kind: 'mhl'; record: Mhl | null };

export function DisplaysScreen() {
  const api = useSession((s) => s.api);
  const [editing, setEditing] = useState<Editing | null>(null);
  // The tables page on the server; a save or delete bumps the version to fetch the pages again. The
  // names a page refers to come by id once its rows are up; the form and filters search the server.
  const [version, setVersion] = useState(0);
  // Filters the server applies (`?display=`).
  const [planogramDisplay, setPlanogramDisplay] = useState('');
  const [mhlDisplay, setMhlDisplay] = useState('');
  const changed = () => {
    setVersion((v) => v + 1);
    // A save may have renamed what the pages name.
    for (const c of ['displays', 'planograms', 'mhl'] as const) directories[c].getState().clear();
  };
  const [deleting, setDeleting] = useState<{ kind: Collection; record: { id: string; name: string }; noun: string } | null>(null);

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
                value: (r) => r.planogram,
                render: (r) =>
                  r.planogram ? (
                    <a href={hrefFor({ screen: 'planogram', id: r.planogram })}>
                      <RecordName collection="planograms" id={r.planogram} />
                    </a>
                  ) : (
                    '—'
                  ),
              },
              {
                key: 'musthavelist',
                label: 'Must-have list',
                value: (r) => r.musthavelist,
                render: (r) =>
                  r.musthavelist ? (
                    <a href={hrefFor({ screen: 'mhl', id: r.musthavelist })}>
                      <RecordName collection="mhl" id={r.musthavelist} />
                    </a>
                  ) : (
                    '—'
                  ),
              },
            ]}
            actions={(r) => rowActions('displays', 'display', r, () => setEditing({ kind: 'displays', record: r }))}
            empty={<Empty>No displays yet. A display ties a planogram and a must-have list to a shelf.</Empty>}
          />
        }
      </section>
      <DisplayChildren
        kind="planograms"
        title="Planograms"
        source={collectionSource(api, 'planograms', planogramDisplay ? { display: planogramDisplay } : {}, version)}
        display={planogramDisplay}
        onDisplay={setPlanogramDisplay}
        onNew={() => setEditing({ kind: 'planograms', record: null })}
        actions={(r) => rowActions('planograms', NOUNS.planograms, r, () => setEditing({ kind: 'planograms', record: r }))}
      />
      <DisplayChildren
        kind="mhl"
        title="Must-have lists"
        source={collectionSource(api, 'mhl', mhlDisplay ? { display: mhlDisplay } : {}, version)}
        display={mhlDisplay}
        onDisplay={setMhlDisplay}
        onNew={() => setEditing({ kind: 'mhl', record: null })}
        actions={(r) => rowActions('mhl', NOUNS.mhl, r, () => setEditing({ kind: 'mhl', record: r }))}
      />
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

/** What hangs off displays, each listed with its display and filtered by it on the server. */
function DisplayChildren<T extends Planogram | Mhl>(props: {
  kind: 'planograms' | 'mhl';
  title: string;
  source: ServerSource<T>;
  display: string;
  onDisplay(id: string): void;
  onNew(): void;
  actions(record: T): ReactNode;
}) {
  const noun = NOUNS[props.kind];
  const screen = props.kind === 'mhl' ? 'mhl' : 'planogram';
  return (
    <section aria-labelledby={`${screen}-list-title`}>
      <header className="screen-header">
        <h3 id={`${screen}-list-title`}>{props.title}</h3>
        <button type="button" className="primary" onClick={props.onNew}>
          New {noun}
        </button>
      </header>
      <DisplayFilter label={`${props.title} of display`} value={props.display} onChange={props.onDisplay} />
      <DataTable<T>
        label={props.title}
        source={props.source}
        rowKey={(r) => r.id}
        initialSort="name"
        pageSize={8}
        columns={[
          {
            key: 'name',
            label: 'Name',
            value: (r) => r.name,
            render: (r) => <a href={hrefFor({ screen, id: r.id })}>{r.name}</a>,
          },
          { key: 'display', label: 'Display', value: (r) => r.display, render: (r) => <RecordName collection="displays" id={r.display} /> },
        ]}
        actions={props.actions}
        empty={<Empty>No {props.title.toLowerCase()} yet.</Empty>}
      />
    </section>
  );
}

/** A list's `?display=` filter: displays searched on the server. */
function DisplayFilter(props: { label: string; value: string; onChange(id: string): void }) {
  return (
    <div className="filters">
      <RecordPickerField collection="displays" label={props.label} value={props.value} placeholder="All displays" onChange={props.onChange} />
    </div>
  );
}

const NOUNS = { displays: 'display', planograms: 'planogram', mhl: 'must-have list' } as const;

function MasterDataForm({ editing, onClose, onSaved }: { editing: Editing; onClose(): void; onSaved(): void }) {
  const api = useSession((s) => s.api);
  const record = editing.record;
  const [name, setName] = useState(record?.name ?? '');
  const [display, setDisplay] = useState(record && 'display' in record ? (record.display ?? '') : '');
  const [planogram, setPlanogram] = useState(record && 'planogram' in record ? (record.planogram ?? '') : '');
  const [mhl, setMhl] = useState(record && 'musthavelist' in record ? (record.musthavelist ?? '') : '');
  const { busy, error, fieldErrors, submit } = useSubmission();
  const noun = NOUNS[editing.kind];

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
            <RecordPickerField
              collection="planograms"
              label="Planogram"
              value={planogram}
              placeholder="The newest planogram for this display"
              onChange={setPlanogram}
              errors={fieldErrors.planogram}
            />
            <RecordPickerField
              collection="mhl"
              label="Must-have list"
              value={mhl}
              placeholder="The newest must-have list for this display"
              onChange={setMhl}
              errors={fieldErrors.musthavelist}
            />
          </>
        ) : (
          <RecordPickerField collection="displays" label="Display" value={display} onChange={setDisplay} errors={fieldErrors.display} />
        )}
        <FormActions onCancel={onClose} disabled={busy} />
      </form>
    </Dialog>
  );
}
