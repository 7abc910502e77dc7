// One SKU: its fields, codes, sizes, attributes and the reference images recognition compares against.
import { useCallback, useEffect, useState } from 'react';
import { addSkuImage, getOne, listSkuImages, removeSkuImage, updateOne } from '../../api/endpoints';
import { describeError } from '../../api/errors';
import type { Sku, SkuImage } from '../../api/types';
import { ApiImage, ApiImageCrop } from '../../components/ApiImage';
import { DropZone } from '../../components/DropZone';
import { FormError } from '../../components/FormError';
import { ErrorMessage, Loading } from '../../components/StateMessage';
import { useSubmission } from '../../components/useSubmission';
import { hrefFor } from '../../navigation/routes';
import { skuDirectory } from '../../stores/skuDirectory';
import { useSession } from '../../stores/session';
import { skuPicturesStore } from '../../stores/skuPictures';
import { SkuFields, SKU_FIELDS } from './SkuFields';
import { skuBody, valuesFromSku, type SkuFormValues } from './skuForm';

export function SkuScreen({ id }: { id: string }) {
  const api = useSession((s) => s.api);
  const [sku, setSku] = useState<Sku | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [values, setValues] = useState<SkuFormValues | null>(null);
  const [saved, setSaved] = useState(false);
  const { busy, error, fieldErrors, submit } = useSubmission();

  const load = useCallback(() => {
    setLoadError(null);
    getOne(api, 'sku', id).then(
      (s) => {
        setSku(s);
        setValues(valuesFromSku(s));
      },
      (e) => setLoadError(describeError(e)),
    );
  }, [api, id]);
  useEffect(load, [load]);

  if (loadError) return <ErrorMessage message={loadError} onRetry={load} />;
  if (!sku || !values) return <Loading what="SKU" />;
  return (
    <section aria-labelledby="sku-page-title">
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <a href={hrefFor({ screen: 'catalog', collection: 'sku' })}>SKUs</a> / {sku.name}
      </nav>
      <h2 id="sku-page-title">SKU: {sku.name}</h2>
      <div className="sku-page">
        <form
          aria-label="SKU details"
          noValidate
          onSubmit={async (e) => {
            e.preventDefault();
            setSaved(false);
            const updated = await submit(() => updateOne(api, 'sku', id, skuBody(values)));
            if (updated) {
              setSku(updated);
              setSaved(true);
              // Other screens name it by id: they show the new values.
              skuDirectory.getState().put([updated]);
            }
          }}
        >
          <FormError error={error} fieldErrors={fieldErrors} shownFields={SKU_FIELDS} />
          {saved && (
            <p role="status" className="form-saved">
              Saved.
            </p>
          )}
          <SkuFields values={values} onChange={(v) => (setValues(v), setSaved(false))} errors={fieldErrors} />
          <div className="form-actions">
            <button type="submit" className="primary" disabled={busy}>
              Save SKU
            </button>
          </div>
        </form>
        <ReferenceImages sku={sku} />
      </div>
    </section>
  );
}

function ReferenceImages({ sku }: { sku: Sku }) {
  const api = useSession((s) => s.api);
  const [images, setImages] = useState<SkuImage[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [adding, setAdding] = useState(0);

  const load = useCallback(() => {
    listSkuImages(api, sku.id).then(setImages, (e) => setError(describeError(e)));
  }, [api, sku.id]);
  useEffect(load, [load]);
  const changed = () => {
    skuPicturesStore.getState().forget(sku.id);
    load();
  };

  async function add(files: File[]) {
    setError(null);
    setAdding((n) => n + files.length);
    for (const file of files) {
      try {
        await addSkuImage(api, sku.id, file, file.name);
      } catch (e) {
        setError(`${file.name}: ${describeError(e)}`);
      } finally {
        setAdding((n) => n - 1);
      }
    }
    changed();
  }

  return (
    <section className="reference-images" aria-labelledby="reference-images-title">
      <h3 id="reference-images-title">Reference images</h3>
      <p className="hint">
        Recognition compares every product on a shelf photo with these pictures. Products a supervisor corrects in a review are added here too, marked as
        from a review.
      </p>
      {error && <ErrorMessage message={error} />}
      <DropZone label="Add reference images" onFiles={(f) => void add(f)}>
        {adding > 0 && (
          <p role="status" aria-live="polite">
            Uploading {adding} image{adding === 1 ? '' : 's'}…
          </p>
        )}
      </DropZone>
      {images === null ? (
        <Loading what="reference images" />
      ) : images.length === 0 ? (
        <p className="state state-empty" role="status">
          No reference images yet: this SKU cannot be recognised until it has one.
        </p>
      ) : (
        <ul className="image-grid" aria-label="Reference images">
          {images.map((img, i) => (
            <li key={img.id}>
              {img.crop ? (
                <ApiImageCrop src={img.url} crop={img.crop} alt={`${sku.name} reference image ${i + 1}${img.source === 'review' ? ', from a review' : ''}`} />
              ) : (
                <ApiImage src={img.url} alt={`${sku.name} reference image ${i + 1}`} />
              )}
              {img.source === 'review' && (
                <span className="badge badge-new" title="Cut from a shelf photo when a supervisor corrected this product in a review">
                  From a review
                </span>
              )}
              <button
                type="button"
                className="danger"
                aria-label={`Remove reference image ${i + 1}`}
                onClick={async () => {
                  try {
                    await removeSkuImage(api, sku.id, img.id);
                    changed();
                  } catch (e) {
                    setError(describeError(e));
                  }
                }}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
