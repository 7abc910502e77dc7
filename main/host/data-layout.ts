// The data directory's layout is versioned by a small file in it, so that a newer app can move an older
// layout into shape before the server opens the database, and an older app refuses a folder that a newer
// one has already changed (opening it could corrupt data it does not understand).
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const LAYOUT_FILE = 'data-layout.json';

export interface LayoutStep {
  /** The version this step upgrades to; steps run in ascending order. */
  to: number;
  description: string;
  apply(dataDir: string): Promise<void>;
}

export interface LayoutContext {
  steps?: LayoutStep[];
}

export interface LayoutResult {
  from: number;
  to: number;
  applied: string[];
}

export class DataLayoutTooNewError extends Error {
  constructor(
    readonly dataDir: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `The data folder ${dataDir} has layout version ${found}, newer than this app supports (${supported}). ` +
        'Install the newer version of Shelf Audit to open it.',
    );
    this.name = 'DataLayoutTooNewError';
  }
}

export const LAYOUT_STEPS: LayoutStep[] = [
  {
    to: 1,
    // Version 1 is the layout startServer creates (the database and its -wal/-shm files at the top);
    // folders from before versioning already have it, so they are only stamped.
    description: 'stamp the layout version',
    async apply() {},
  },
];

export const CURRENT_LAYOUT_VERSION = LAYOUT_STEPS.reduce((v, s) => Math.max(v, s.to), 0);

export async function readLayoutVersion(dataDir: string): Promise<number> {
  let text: string;
  try {
    text = await readFile(path.join(dataDir, LAYOUT_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
  const version = (JSON.parse(text) as { version?: unknown }).version;
  if (!Number.isInteger(version) || (version as number) < 0) {
    throw new Error(`${path.join(dataDir, LAYOUT_FILE)} holds no valid layout version`);
  }
  return version as number;
}

async function writeLayoutVersion(dataDir: string, version: number): Promise<void> {
  // Write then rename, so a crash never leaves a half-written version file behind.
  const file = path.join(dataDir, LAYOUT_FILE);
  await writeFile(`${file}.tmp`, JSON.stringify({ version }) + '\n');
  await rename(`${file}.tmp`, file);
}

/**
 * Brings dataDir to the current layout: refuses a newer layout, then applies each pending step (a step
 * may move files into a new arrangement), recording the version after every step so an interrupted
 * migration resumes where it stopped.
 */
export async function migrateDataDir(dataDir: string, ctx: LayoutContext = {}): Promise<LayoutResult> {
  const steps = [...(ctx.steps ?? LAYOUT_STEPS)].sort((a, b) => a.to - b.to);
  const supported = steps.reduce((v, s) => Math.max(v, s.to), 0);

  await mkdir(dataDir, { recursive: true });
  await rm(path.join(dataDir, `${LAYOUT_FILE}.tmp`), { force: true });

  const from = await readLayoutVersion(dataDir);
  if (from > supported) throw new DataLayoutTooNewError(dataDir, from, supported);

  const applied: string[] = [];
  for (const step of steps) {
    if (step.to <= from) continue;
    await step.apply(dataDir);
    await writeLayoutVersion(dataDir, step.to);
    applied.push(step.description);
  }
  return { from, to: Math.max(from, supported), applied };
}
