// Supervisors' review of recognition results: the corrected boxes of a scene's photo, one
// row per (scene, photo) with the version that guards concurrent saves, and an audit row per saved
// correction (who, when, the boxes before and after). Both sync as visit children owned by the device
// that wrote them, so a review saved offline reaches the central.
import { type Migration } from 'kysely';
import { keyed, ref, stamped } from './conventions.js';

export const review: Migration = {
  async up(db) {
    await stamped(
      keyed(db, 'scene_annotations')
        .addColumn('scene_id', 'varchar(255)', (c) => ref('scenes', 'cascade')(c.notNull()))
        .addColumn('image_id', 'varchar(255)', (c) => ref('uploads', 'restrict')(c.notNull()))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('boxes', 'text', (c) => c.notNull())
        .addColumn('reviewer', 'varchar(255)')
        .addUniqueConstraint('scene_annotations_scene_image', ['scene_id', 'image_id']),
    ).execute();
    await stamped(
      keyed(db, 'annotation_corrections')
        .addColumn('scene_id', 'varchar(255)', (c) => ref('scenes', 'cascade')(c.notNull()))
        .addColumn('image_id', 'varchar(255)', (c) => ref('uploads', 'restrict')(c.notNull()))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('reviewer', 'varchar(255)')
        .addColumn('before', 'text', (c) => c.notNull())
        .addColumn('after', 'text', (c) => c.notNull()),
    ).execute();
    await db.schema.createIndex('annotation_corrections_scene').on('annotation_corrections').column('scene_id').execute();
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
