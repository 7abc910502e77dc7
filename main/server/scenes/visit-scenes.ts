// The scenes of a visit as the Data API's visit detail shows them (as the real service does):
// [{id, agent_id, images: [{id, original_url, annotations, shelf_annotations}], facing_counts}];
// agent_id (ours) is the agent that sent the scene (/recognize metadata.agent_id), or null.
import type { Kysely } from 'kysely';
import type { Static } from 'typebox';
import type { DataVisitScene } from '../schemas/data-api.js';
import type { Database } from '../storage/schema.js';
import type { SceneAnalysis } from '../recognition/analysis.js';
import { buildFacingCount } from './reports/facing-count.js';
import { reviewedAnalysis } from './review.js';
import { uploadUrlPath } from '../domain/uploads.js';
import { scenesOfVisit, uploadTokens } from './queries.js';

export async function visitScenes(db: Kysely<Database>, visitId: string, baseUrl: string): Promise<Static<typeof DataVisitScene>[]> {
  const scenes = await scenesOfVisit(db, visitId);
  const out = [];
  for (const s of scenes) {
    const ids = JSON.parse(s.images) as string[];
    const byId = await uploadTokens(db, ids);
    const analysis = s.analysis ? await reviewedAnalysis(db, s.id, JSON.parse(s.analysis) as SceneAnalysis) : null;
    out.push({
      id: s.id,
      agent_id: s.agent_id,
      images: ids.map((id) => {
        const u = byId.get(id);
        const a = analysis?.images.find((i) => i.image === id);
        return {
          id,
          original_url: u ? baseUrl + uploadUrlPath(u) : null,
          annotations: a?.products.map((p) => ({ sku_id: p.sku_id, x: (p.x1 + p.x2) / 2, y: (p.y1 + p.y2) / 2, w: p.x2 - p.x1, h: p.y2 - p.y1 })) ?? [],
          shelf_annotations: a?.shelves ?? [],
        };
      }),
      facing_counts: analysis ? buildFacingCount(analysis) : [],
    });
  }
  return out;
}
