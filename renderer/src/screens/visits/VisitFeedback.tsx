// What a reviewer sends back about a visit: a recognition error from a box, an out-of-stock reason for
// a missing product. Both need the scene the photos were recognised in. The product a box really is
// is searched in the catalog on the server.
import { useState } from 'react';
import { recordOosReason, reportRecognitionError } from '../../api/endpoints';
import type { Annotation, Sku } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { SelectField, TextField } from '../../components/Field';
import { SkuPickerField } from '../../components/SkuPickerField';
import { FormError } from '../../components/FormError';
import { useSubmission } from '../../components/useSubmission';
import { useSession } from '../../stores/session';
import { useSkus } from '../../stores/skuDirectory';
import { FormActions } from '../../components/FormActions';

export function RecognitionErrorDialog(props: {
  scene: string | null;
  annotation: Annotation;
  image: string;
  /** The names the visit screen already has. */
  skuById: Map<string, Sku>;
  onClose(done: string | null): void;
}) {
  const api = useSession((s) => s.api);
  const [actual, setActual] = useState('');
  const [message, setMessage] = useState('');
  const { busy, error, fieldErrors, submit } = useSubmission();
  const chosen = useSkus(actual ? [actual] : []).get(actual);
  const recognised = props.annotation.sku_id ? (props.skuById.get(props.annotation.sku_id)?.name ?? props.annotation.sku_id) : null;
  return (
    <Dialog title="Report recognition error" onClose={() => props.onClose(null)}>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          if (!props.scene) return;
          const actualName = chosen?.name;
          const text = [message, actualName ? `Actually: ${actualName} (${actual})` : ''].filter(Boolean).join('\n');
          const r = await submit(() =>
            reportRecognitionError(api, {
              // The SKU the error is about: the one recognised, or for an unknown box the one it really is.
              sku_gid: props.annotation.sku_id ?? actual,
              scene: props.scene!,
              message: text || undefined,
              images: [props.image],
            }),
          );
          if (r) props.onClose('Recognition error reported.');
        }}
      >
        <p>Recognised as: {recognised ?? 'unknown product'}</p>
        {!props.scene && (
          <p className="form-error" role="alert">
            The scene of this photo is not known here, so the error cannot be sent.
          </p>
        )}
        <FormError error={error} fieldErrors={fieldErrors} shownFields={['sku_gid', 'message']} />
        <SkuPickerField label="The product really is" value={actual} onChange={setActual} errors={fieldErrors.sku_gid} />
        <TextField label="Message" value={message} onChange={(e) => setMessage(e.target.value)} errors={fieldErrors.message} />
        <FormActions onCancel={() => props.onClose(null)} disabled={busy || !props.scene || (!props.annotation.sku_id && !actual)} submit="Send report" />
      </form>
    </Dialog>
  );
}

export const OOS_REASONS = [
  'Out of stock in the store',
  'On its way from the warehouse',
  'Delisted by the store',
  'Shelf being rearranged',
  'Other',
];

export function OosReasonDialog(props: { scene: string | null; sku: string; skuName: string; onClose(done: string | null): void }) {
  const api = useSession((s) => s.api);
  const [reason, setReason] = useState(OOS_REASONS[0]);
  const [message, setMessage] = useState('');
  const { busy, error, fieldErrors, submit } = useSubmission();
  return (
    <Dialog title={`Out-of-stock reason: ${props.skuName}`} onClose={() => props.onClose(null)}>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          if (!props.scene) return;
          const r = await submit(() =>
            recordOosReason(api, { sku_gid: props.sku, scene: props.scene!, reason, message: message || undefined }),
          );
          if (r) props.onClose(`Out-of-stock reason recorded for ${props.skuName}.`);
        }}
      >
        {!props.scene && (
          <p className="form-error" role="alert">
            The scene of this visit is not known here, so the reason cannot be sent.
          </p>
        )}
        <FormError error={error} fieldErrors={fieldErrors} shownFields={['reason', 'message']} />
        <SelectField
          label="Reason"
          value={reason}
          options={OOS_REASONS.map((r) => ({ value: r, label: r }))}
          onChange={(e) => setReason(e.target.value)}
          errors={fieldErrors.reason}
        />
        <TextField label="Message" value={message} onChange={(e) => setMessage(e.target.value)} errors={fieldErrors.message} />
        <FormActions onCancel={() => props.onClose(null)} disabled={busy || !props.scene} submit="Record reason" />
      </form>
    </Dialog>
  );
}
