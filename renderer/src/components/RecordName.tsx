// A record's name where a row names it by id (a display's planogram, an SKU's brand): the id until the
// name arrives. The cells of one render ask together, so a page of rows costs one request per kind.
import { useNames, type NamedCollection } from '../stores/recordDirectory';

export function RecordName({ collection, id }: { collection: NamedCollection; id: string | null | undefined }) {
  const nameOf = useNames(collection, [id]);
  return <>{nameOf(id)}</>;
}
