// A supervisor's corrections of a photo's price tags (issue 45): one row per (scene, photo) with the
// version that guards concurrent saves, laid over the model's analysis wherever it is read, like the
// reviewed boxes of 0018. Synced as a visit child owned by the device that saved it.
import { type Migration } from 'kysely';
import { keyed, ref, stamped } from './conventions.js';

export const priceTagReviews: Migration = {
  async up(db) {
    await stamped(
      keyed(db, 'price_tag_reviews')
        .addColumn('scene_id', 'varchar(255)', (c) => ref('scenes', 'cascade')(c.notNull()))
        .addColumn('image_id', 'varchar(255)', (c) => ref('uploads', 'restrict')(c.notNull()))
        .addColumn('version', 'integer', (c) => c.notNull())
        .addColumn('corrections', 'text', (c) => c.notNull())
        .addColumn('reviewer', 'varchar(255)')
        .addUniqueConstraint('price_tag_reviews_scene_image', ['scene_id', 'image_id']),
    ).execute();
  },
  async down() {
    throw new Error('Downgrades are not supported: restore the data directory from a backup instead.');
  },
};
