/** Installed PostgreSQL server bin folders, highest version first. */
export function installedPgBins(base?: string): string[];
export const PG_BIN: string | undefined;
export class PgCluster {
  readonly dir: string;
  port: number;
  start(settings?: Record<string, string | number>): Promise<void>;
  readonly url: string;
  stop(): void;
}
