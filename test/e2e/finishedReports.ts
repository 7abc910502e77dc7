// Finished recognition for a visit without running it: a scene with READY reports written straight into
// the server's data directory, for browser tests about how a visit's results are shown, not made.
import path from 'node:path';
import Database from 'better-sqlite3';
import type { ReportType } from '../../renderer/src/api/types.js';

export function writeFinishedReports(dataDir: string, visit: string, reports: Partial<Record<ReportType, unknown>>): void {
  const db = new Database(path.join(dataDir, 'shelf-audit.sqlite'));
  try {
    db.pragma('busy_timeout = 5000');
    const at = new Date().toISOString();
    const scene = `scene-of-${visit}`;
    db.transaction(() => {
      db.prepare('insert into scenes (id, request_id, visit_id, images, options, created_at, updated_at) values (?, ?, ?, ?, ?, ?, ?)').run(
        scene, scene, visit, '[]', '{}', at, at,
      );
      const insert = db.prepare("insert into reports (id, scene_id, visit_id, report_type, status, json, created_at, updated_at) values (?, ?, ?, ?, 'READY', ?, ?, ?)");
      for (const [type, json] of Object.entries(reports)) insert.run(`${scene}-${type}`, scene, visit, type, JSON.stringify(json), at, at);
    })();
  } finally {
    db.close();
  }
}
