// A catalog (Identifier) copied to another thread: its references as encoded descriptors, tagged with
// a version so that a thread already holding that catalog is sent only the tag and keeps its copy.
import { decodeDescriptor, encodeDescriptor } from './describe.js';
import { Identifier, type IdentifierOptions } from './identifier.js';

export interface CatalogReference {
  id: string;
  skuId: string;
  descriptor: Uint8Array; // encodeDescriptor()
}

/** What a thread is sent: the version always, the references only when it lacks that version. */
export interface CatalogMessage {
  version: number;
  options: IdentifierOptions;
  refs?: CatalogReference[];
  /** Identifier.skuNames, sent with the references. */
  names?: Array<[string, { name: string; text: string }]>;
}

/** Numbers each Identifier once (the recognition worker reuses one while the catalog is unchanged). */
export class CatalogVersions {
  private readonly versions = new WeakMap<Identifier, number>();
  private next = 1;

  of(identifier: Identifier): number {
    let v = this.versions.get(identifier);
    if (v === undefined) this.versions.set(identifier, (v = this.next++));
    return v;
  }
}

export function catalogReferences(identifier: Identifier): CatalogReference[] {
  return identifier.references().map((r) => ({ id: r.id, skuId: r.skuId, descriptor: encodeDescriptor(r.descriptor) }));
}

/** The receiving side: the identifier of the message's version, rebuilt only when the version is new. */
export class CatalogCopy {
  private current: { version: number; identifier: Identifier } | undefined;

  /** Forgets the copy (its embeddings came from another embedder). */
  clear(): void {
    this.current = undefined;
  }

  identifier(m: CatalogMessage): Identifier {
    if (this.current?.version === m.version) return this.current.identifier;
    if (!m.refs) throw new Error('catalog missing');
    const identifier = new Identifier(m.options);
    for (const r of m.refs) {
      const descriptor = decodeDescriptor(r.descriptor);
      if (descriptor) identifier.add({ id: r.id, skuId: r.skuId, descriptor });
    }
    for (const [id, n] of m.names ?? []) identifier.skuNames.set(id, n);
    this.current = { version: m.version, identifier };
    return identifier;
  }
}
