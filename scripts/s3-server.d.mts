export const CEPH_BINARIES: string[];
/** Whether Debian's radosgw, ceph-mon and ceph-osd are installed. */
export function cephInstalled(): boolean;
/** A one-node Ceph cluster with its RADOS gateway on a loopback port (an S3-compatible server). */
export class CephS3 {
  readonly dir: string;
  port: number;
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  readonly endpoint: string;
  /** The central's settings for a bucket on this server. */
  env(bucket: string): Record<string, string>;
  start(): Promise<void>;
  log(name: string): string;
  /** SIGSTOP (true) or SIGCONT (false) the gateway. */
  pause(paused?: boolean): void;
  stop(): void;
}
