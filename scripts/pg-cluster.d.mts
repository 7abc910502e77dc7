/** Installed PostgreSQL server bin folders, highest version first. */
export function installedPgBins(base?: string): string[];
export const PG_BIN: string | undefined;
export class PgCluster {
  readonly dir: string;
  port: number;
  /** Runs one of the server's tools (psql, pg_ctl...) as the cluster's owner. */
  run(tool: string, args: string[]): Buffer;
  start(settings?: Record<string, string | number>): Promise<void>;
  readonly url: string;
  stop(): void;
}
