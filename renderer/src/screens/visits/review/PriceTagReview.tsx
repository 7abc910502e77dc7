// The price tags of a visit's photos (PRICE_TAGS), drawn on each photo in the colour of what the tag
// says of its product (PRICE_COMPLIANCE's status), with the price read beside it. A supervisor picks a
// tag to correct its price (or mark it unreadable) or its link (another SKU, or none): saved for that
// photo over the version read (scenes/price-review.ts), after which every report is built again.
import { useEffect, useState } from 'react';
import { getPriceTags, getUpload, savePriceTags } from '../../../api/endpoints';
import { describeError } from '../../../api/errors';
import type { PriceComplianceBody, PriceTagItem, PriceTagsImage, ScenePriceTags, Upload } from '../../../api/types';
import { ApiImage } from '../../../components/ApiImage';
import { Dialog } from '../../../components/Dialog';
import { TextField } from '../../../components/Field';
import { FormActions } from '../../../components/FormActions';
import { FormError } from '../../../components/FormError';
import { SkuPickerField } from '../../../components/SkuPickerField';
import { ErrorMessage } from '../../../components/StateMessage';
import { useSubmission } from '../../../components/useSubmission';
import { useSession } from '../../../stores/session';

type TagState = 'ok' | 'wrong_price' | 'unreadable' | 'unlinked' | 'unchecked';

const TAG_COLOUR: Record<TagState, string> = {
  ok: '#2ca02c',
  wrong_price: '#d7263d',
  unreadable: '#ff7f0e',
  unlinked: '#7f7f7f',
  unchecked: '#1f77b4',
};

/** What a tag says of its product, from PRICE_COMPLIANCE: the tag's own reading decides unreadable and unlinked. */
function tagState(tag: PriceTagItem, image: string, compliance: PriceComplianceBody | null): TagState {
  if (tag.sku_id === null) return 'unlinked';
  if (tag.status === 'unreadable') return 'unreadable';
  const sku = compliance?.skus.find((s) => s.tags.some((t) => t.image === image && t.index === tag.index));
  if (!sku || sku.expected_price === null) return 'unchecked';
  return tag.price === sku.expected_price && (tag.currency === null || tag.currency === sku.expected_currency) ? 'ok' : 'wrong_price';
}

function TagPhoto(props: {
  photo: PriceTagsImage;
  index: number;
  compliance: PriceComplianceBody | null;
  nameOf(sku: string | null): string;
  onPick: ((tag: PriceTagItem) => void) | null;
}) {
  const api = useSession((s) => s.api);
  const [upload, setUpload] = useState<Upload | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { photo } = props;
  useEffect(() => {
    getUpload(api, photo.image).then(setUpload, (e) => setError(describeError(e)));
  }, [api, photo.image]);
  const stroke = Math.max(2, Math.round(Math.max(photo.width, photo.height) / 300));
  const font = Math.max(14, Math.round(photo.height / 40));
  return (
    <figure className="photo-boxes price-tag-photo">
      <figcaption>
        Photo {props.index + 1}: {photo.tags.length} price tag{photo.tags.length === 1 ? '' : 's'}
      </figcaption>
      {error && <ErrorMessage message={error} />}
      <div className="photo-stage" style={{ maxWidth: `min(100%, calc(70vh * ${photo.width / Math.max(1, photo.height)}))` }}>
        {upload ? <ApiImage src={upload.url} alt={`Price tags on photo ${props.index + 1}`} /> : <span className="image-loading" />}
        <svg viewBox={`0 0 ${photo.width} ${photo.height}`} preserveAspectRatio="none" role="group" aria-label={`Price tags on photo ${props.index + 1}`}>
          {photo.tags.map((t) => {
            const state = tagState(t, photo.image, props.compliance);
            const label = `Tag ${t.index + 1}: ${t.status === 'read' ? `${t.price}${t.currency ? ` ${t.currency}` : ''}` : 'unreadable'}, ${t.sku_id ? props.nameOf(t.sku_id) : 'no product'}`;
            return (
              <g
                key={t.index}
                className="box price-tag"
                data-state={state}
                role={props.onPick ? 'button' : 'img'}
                tabIndex={props.onPick ? 0 : undefined}
                aria-label={label}
                onClick={() => props.onPick?.(t)}
                onKeyDown={(e) => {
                  if (props.onPick && (e.key === 'Enter' || e.key === ' ')) {
                    e.preventDefault();
                    props.onPick(t);
                  }
                }}
              >
                <title>{label}</title>
                <rect x={t.x1} y={t.y1} width={t.x2 - t.x1} height={t.y2 - t.y1} fill="transparent" stroke={TAG_COLOUR[state]} strokeWidth={stroke} strokeDasharray={t.reviewed ? undefined : `${stroke * 3} ${stroke}`} />
                <text x={t.x1} y={Math.max(font, t.y1 - stroke)} fontSize={font} fill={TAG_COLOUR[state]} stroke="white" strokeWidth={font / 8} paintOrder="stroke">
                  {t.status === 'read' ? t.price : '?'}
                </text>
              </g>
            );
          })}
        </svg>
      </div>
    </figure>
  );
}

/** The photos of PRICE_TAGS with their tags; `scene` given, a tag can be corrected. */
export function PriceTagPhotos(props: {
  photos: PriceTagsImage[];
  compliance: PriceComplianceBody | null;
  scene: string | null;
  nameOf(sku: string | null): string;
  onSaved(message: string): void;
}) {
  const api = useSession((s) => s.api);
  const [editing, setEditing] = useState<{ image: string; tag: PriceTagItem } | null>(null);
  const [tags, setTags] = useState<ScenePriceTags | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const pick = props.scene
    ? (image: string) => async (tag: PriceTagItem) => {
        setLoadError(null);
        try {
          // The corrections saved so far and the photo's version: a save replaces the photo's corrections.
          setTags(await getPriceTags(api, props.scene!));
          setEditing({ image, tag });
        } catch (e) {
          setLoadError(describeError(e));
        }
      }
    : null;
  return (
    <div className="price-tag-photos">
      <p className="hint">
        Tags in green show the expected price, red another price, orange could not be read, grey price no product; dashed: as read by the
        model, solid: corrected.{props.scene ? ' Pick a tag to correct it.' : ''}
      </p>
      {loadError && <ErrorMessage message={loadError} />}
      {props.photos.map((p, i) => (
        <TagPhoto key={p.image} photo={p} index={i} compliance={props.compliance} nameOf={props.nameOf} onPick={pick ? pick(p.image) : null} />
      ))}
      {editing && tags && props.scene && (
        <TagCorrectionDialog
          scene={props.scene}
          image={editing.image}
          tag={editing.tag}
          tags={tags}
          onCancel={() => setEditing(null)}
          onSaved={(m) => {
            setEditing(null);
            props.onSaved(m);
          }}
        />
      )}
    </div>
  );
}

function TagCorrectionDialog(props: { scene: string; image: string; tag: PriceTagItem; tags: ScenePriceTags; onCancel(): void; onSaved(message: string): void }) {
  const api = useSession((s) => s.api);
  const photo = props.tags.images.find((i) => i.image === props.image);
  const { tag } = props;
  const [unreadable, setUnreadable] = useState(tag.status === 'unreadable');
  const [price, setPrice] = useState(tag.price ?? '');
  const [linked, setLinked] = useState(tag.sku_id !== null);
  const [sku, setSku] = useState(tag.sku_id ?? '');
  const { busy, error, fieldErrors, submit } = useSubmission();
  // The server names a correction's fields by their path: shown at the matching input.
  const at = (field: string) => Object.entries(fieldErrors).flatMap(([k, v]) => (k.endsWith(`.${field}`) || k === field ? v : []));
  return (
    <Dialog title={`Correct price tag ${tag.index + 1}`} onClose={props.onCancel}>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          if (!photo) return;
          const correction: { index: number; price?: string | null; sku_id?: string | null } = { index: tag.index };
          const newPrice = unreadable ? null : price.trim().replace(',', '.');
          if (newPrice !== tag.price || unreadable !== (tag.status === 'unreadable')) correction.price = newPrice;
          const newSku = linked ? sku || null : null;
          if (newSku !== tag.sku_id) correction.sku_id = newSku;
          const others = photo.corrections.filter((c) => c.index !== tag.index);
          const kept = photo.corrections.find((c) => c.index === tag.index);
          const tags = [...others, { ...kept, ...correction }];
          const ok = await submit(() => savePriceTags(api, props.scene, { images: [{ image: props.image, version: photo.version, tags }] }));
          if (ok !== undefined) props.onSaved(`Price tag ${tag.index + 1} corrected: the reports are being built again.`);
        }}
      >
        <FormError error={error} fieldErrors={fieldErrors} shownFields={[]} />
        <p className="muted">Read: “{tag.text || 'nothing'}”</p>
        <label className="checkbox">
          <input type="checkbox" checked={unreadable} onChange={(e) => setUnreadable(e.target.checked)} /> The price cannot be read
        </label>
        {!unreadable && <TextField label="Price on the tag" value={price} onChange={(e) => setPrice(e.target.value)} inputMode="decimal" errors={at('price')} autoFocus />}
        <label className="checkbox">
          <input type="checkbox" checked={!linked} onChange={(e) => setLinked(!e.target.checked)} /> The tag prices no product
        </label>
        {linked && <SkuPickerField label="Product it prices" value={sku} onChange={setSku} errors={at('sku_id')} />}
        <FormActions onCancel={props.onCancel} disabled={busy} />
      </form>
    </Dialog>
  );
}
