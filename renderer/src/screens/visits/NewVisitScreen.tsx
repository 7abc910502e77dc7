// From "new visit" to recognition in a few steps: choose the display, add shelf photos (kept on this
// computer until uploaded), start recognition and watch it go. Displays are searched on the server and
// the chosen one read by id: the list of displays may be long.
import { useEffect, useRef, useState } from 'react';
import { PhotoQualityMark } from '../../components/PhotoQualityMark';
import { BlobImage } from '../../components/BlobImage';
import { DropZone } from '../../components/DropZone';
import { RecordPickerField } from '../../components/RecordPickerField';
import { TextField } from '../../components/Field';
import { ErrorMessage, Loading } from '../../components/StateMessage';
import { hrefFor } from '../../navigation/routes';
import { navigate } from '../../navigation/useRoute';
import { reportTypesFor, type Phase } from '../../stores/newVisit';
import { newVisitStore } from '../../stores/newVisitStore';
import { useRecord } from '../../stores/recordById';
import { useSession } from '../../stores/session';
import { PhotoOverlapNote } from './PhotoOverlapNote';
import { REPORT_LABEL } from './reportLabels';

function phaseText(phase: Phase): string | null {
  switch (phase.step) {
    case 'creating-visit':
      return 'Creating the visit…';
    case 'uploading':
      return `Uploading photos: ${phase.done} of ${phase.total}`;
    case 'starting-recognition':
      return 'Starting recognition…';
    case 'started':
      return 'Recognition started.';
    default:
      return null;
  }
}

/** Replaces one photo by a new one picked from the disk (the desktop dialog, else the file input). */
function RetakeButton({ name, onFile, disabled }: { name: string; onFile(file: File): void; disabled: boolean }) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <button
        type="button"
        disabled={disabled}
        aria-label={`Retake photo ${name}`}
        onClick={async () => {
          const bridge = window.shelfAudit;
          if (!bridge?.openPhotos) return input.current?.click();
          const [picked] = await bridge.openPhotos({ multiple: false });
          if (picked) onFile(new File([new Uint8Array(picked.bytes)], picked.name, { type: picked.type }));
        }}
      >
        Retake
      </button>
      <input
        ref={input}
        type="file"
        accept="image/*"
        hidden
        data-testid={`retake-input-${name}`}
        onChange={(e) => {
          const file = e.target.files?.[0];
          if (file) onFile(file);
          e.target.value = '';
        }}
      />
    </>
  );
}

export function NewVisitScreen() {
  const api = useSession((s) => s.api);
  const { draft, photos, loaded, phase } = newVisitStore();
  const [reason, setReason] = useState('');
  useEffect(() => {
    void newVisitStore.getState().load();
  }, []);
  const busy = phase.step === 'creating-visit' || phase.step === 'uploading' || phase.step === 'starting-recognition';
  const chosen = useRecord('displays', draft.display || null);
  const display = chosen ?? null;
  // The reports asked for depend on the display's planogram and list: wait for its record.
  const displayPending = chosen === undefined;
  const progress = phaseText(phase);

  if (!loaded) return <Loading what="the visit draft" />;
  return (
    <section aria-labelledby="new-visit-title" className="new-visit">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <a href={hrefFor({ screen: 'visits' })}>Visits</a> / New visit
      </nav>
      <h2 id="new-visit-title">New visit</h2>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          const visit = await newVisitStore.getState().start(api, display, reason);
          if (visit) navigate({ screen: 'visit', id: visit });
        }}
      >
        <fieldset disabled={busy}>
          <legend>1. Where</legend>
          <div className="field-row">
            <RecordPickerField
              collection="displays"
              label="Display"
              value={draft.display}
              placeholder="No display (facings only)"
              onChange={(id) => void newVisitStore.getState().update({ display: id })}
            />
            <TextField label="Shop" value={draft.shop} onChange={(e) => void newVisitStore.getState().update({ shop: e.target.value })} />
            <TextField label="Agent" value={draft.agent} onChange={(e) => void newVisitStore.getState().update({ agent: e.target.value })} />
          </div>
          <p className="muted">Reports: {reportTypesFor(display).map((t) => REPORT_LABEL[t].toLowerCase()).join(', ')}.</p>
        </fieldset>
        <fieldset disabled={busy}>
          <legend>2. Shelf photos</legend>
          <DropZone label="Add shelf photos" onFiles={(files) => void newVisitStore.getState().addPhotos(files, api)} disabled={busy} />
          {photos.length === 0 ? (
            <p className="state state-empty">No photos yet. They stay on this computer until recognition starts.</p>
          ) : (
            <ul className="photo-grid" aria-label="Photos to upload">
              {photos.map((p, i) => (
                <li key={p.id}>
                  <BlobImage blob={p.blob} alt={`Photo ${i + 1}: ${p.name}`} />
                  <span className="photo-name">{p.name}</span>
                  <span className="muted">{p.uploadId ? 'uploaded' : 'not uploaded yet'}</span>
                  <PhotoQualityMark quality={p.quality} name={p.name} />
                  {i > 0 && <PhotoOverlapNote api={api} previous={photos[i - 1].uploadId} next={p.uploadId} number={i + 1} />}
                  <RetakeButton name={p.name} disabled={busy} onFile={(file) => void newVisitStore.getState().retakePhoto(p.id, file, api)} />
                  <button type="button" className="danger" aria-label={`Remove photo ${p.name}`} onClick={() => void newVisitStore.getState().removePhoto(p.id)}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          )}
        </fieldset>
        <div className="form-actions">
          {progress && (
            <p role="status" aria-live="polite" className="progress-text">
              {progress}
              {phase.step === 'uploading' && <progress max={phase.total} value={phase.done} aria-label="Upload progress" />}
            </p>
          )}
          {phase.step === 'failed' && <ErrorMessage message={phase.message} />}
          {phase.step === 'needs-reason' && (
            <div role="alert" className="retake-reason">
              <p>
                {phase.photos === 1 ? 'One photo is' : `${phase.photos} photos are`} marked retake. Retake {phase.photos === 1 ? 'it' : 'them'}, or say why
                they are sent as they are.
              </p>
              <TextField label="Reason for keeping photos marked retake" value={reason} onChange={(e) => setReason(e.target.value)} />
            </div>
          )}
          <button type="submit" className="primary" disabled={busy || photos.length === 0 || displayPending}>
            Start recognition
          </button>
        </div>
      </form>
    </section>
  );
}
