// A throw-away PostgreSQL cluster for tests and benches, from Debian's server binaries: initdb into a
// temp folder, listening on a unix socket only (nothing on the network), removed by stop(). As root the
// server runs as the postgres user, which initdb requires.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.mjs';

/**
 * Every installed Debian PostgreSQL server's bin folder (/usr/lib/postgresql/N/bin with an initdb),
 * highest version first. scripts/setup.mjs asks the same question, so a version it accepts is one the
 * tests use: no list of known versions to fall behind Debian's.
 */
export function installedPgBins(base = '/usr/lib/postgresql') {
  if (!existsSync(base)) return [];
  return readdirSync(base)
    .filter((v) => /^\d+(\.\d+)?$/.test(v) && existsSync(path.join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => path.join(base, v, 'bin'));
}

export const PG_BIN = installedPgBins()[0];
const isRoot = process.getuid?.() === 0;

export class PgCluster {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-pg-'));
  port = 0;

  run(tool, args) {
    if (!PG_BIN) throw new Error('PostgreSQL server binaries not found (apt-get install postgresql)');
    return isRoot
      ? execFileSync('runuser', ['-u', 'postgres', '--', path.join(PG_BIN, tool), ...args], { stdio: 'pipe' })
      : execFileSync(path.join(PG_BIN, tool), args, { stdio: 'pipe' });
  }

  /** `settings`: extra `-c name=value` server settings (max_connections for a bench). */
  async start(settings = {}) {
    if (isRoot) chownSync(this.dir, Number(execFileSync('id', ['-u', 'postgres']).toString()), Number(execFileSync('id', ['-g', 'postgres']).toString()));
    this.port = await freePort();
    this.run('initdb', ['-D', path.join(this.dir, 'data'), '-A', 'trust', '-U', 'postgres', '--no-sync']);
    const extra = Object.entries(settings).map(([k, v]) => ` -c ${k}=${v}`).join('');
    this.run('pg_ctl', ['-D', path.join(this.dir, 'data'), '-w', '-l', path.join(this.dir, 'log'), '-o', `-c listen_addresses='' -k ${this.dir} -p ${this.port} -F${extra}`, 'start']);
  }

  get url() {
    return `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(this.dir)}&port=${this.port}`;
  }

  stop() {
    try {
      this.run('pg_ctl', ['-D', path.join(this.dir, 'data'), '-m', 'immediate', 'stop']);
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }
}
