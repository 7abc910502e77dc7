// Images the server serves may sit behind the token like every other path, and an <img> cannot send
// the Authorization header: fetch them with it and show them from blob: URLs (the CSP allows blob:).
import type { ApiClient } from './client';

const objectUrls = new Map<string, Promise<string>>();
/** Shelf photos are megabytes each: a reviewer going through a day of visits must not keep them all. */
const KEEP = 150;

export function authorizedImageUrl(api: ApiClient, url: string): Promise<string> {
  const address = api.url(url);
  let entry = objectUrls.get(address);
  if (!entry) {
    entry = api.fetchBlob(address).then((blob) => URL.createObjectURL(blob));
    // A failed fetch must not stay cached: the next screen may be online again.
    entry.catch(() => objectUrls.delete(address));
    objectUrls.set(address, entry);
    // Forget the oldest (images already on screen stay drawn; a later screen fetches again).
    while (objectUrls.size > KEEP) {
      const [oldest, url] = objectUrls.entries().next().value!;
      objectUrls.delete(oldest);
      void url.then(URL.revokeObjectURL, () => undefined);
    }
  } else {
    // Most recently used last.
    objectUrls.delete(address);
    objectUrls.set(address, entry);
  }
  return entry;
}
