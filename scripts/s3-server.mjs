// A throw-away S3-compatible server for tests and benches: Ceph's RADOS gateway (Debian's radosgw)
// on a one-node Ceph cluster in a temp folder: one monitor, one OSD on Ceph's in-memory object
// store (memstore: no disk, no block device), authentication off, everything on loopback ports, no
// systemd. Starts in about 10 s; stop() kills its three daemons and removes the folder.
// scripts/setup.mjs --test installs the packages (radosgw ceph-mon ceph-osd).
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port.mjs';

export const CEPH_BINARIES = ['/usr/bin/radosgw', '/usr/bin/ceph-mon', '/usr/bin/ceph-osd', '/usr/bin/monmaptool', '/usr/bin/radosgw-admin'];

export function cephInstalled() {
  return CEPH_BINARIES.every((b) => existsSync(b));
}

const DAEMONS = ['mon.a', 'osd.0', 'client.rgw'];

export class CephS3 {
  dir = mkdtempSync(path.join(os.tmpdir(), 'shelf-audit-s3-'));
  port = 0;
  accessKeyId = 'shelf-audit-test';
  secretAccessKey = 'shelf-audit-test-secret';
  region = 'us-east-1';

  get endpoint() {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The central's settings for a bucket on this server (SHELF_AUDIT_S3_* and the SDK's credentials). */
  env(bucket) {
    return {
      SHELF_AUDIT_S3_BUCKET: bucket,
      SHELF_AUDIT_S3_ENDPOINT: this.endpoint,
      SHELF_AUDIT_S3_REGION: this.region,
      SHELF_AUDIT_S3_PATH_STYLE: '1',
      AWS_ACCESS_KEY_ID: this.accessKeyId,
      AWS_SECRET_ACCESS_KEY: this.secretAccessKey,
    };
  }

  run(tool, args) {
    return execFileSync(tool, ['-c', path.join(this.dir, 'ceph.conf'), ...args], { stdio: 'pipe', timeout: 60_000 });
  }

  /**
   * Starts the cluster; a start that fails is cleaned up and tried again, twice: now and then the new
   * OSD is refused by the monitor as it registers ("wrong fsid", seen in about one start of five here).
   */
  async start() {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.startOnce();
      } catch (error) {
        if (attempt >= 3) throw error;
        this.kill();
        rmSync(this.dir, { recursive: true, force: true });
        mkdirSync(this.dir);
      }
    }
  }

  async startOnce() {
    if (!cephInstalled()) throw new Error('Ceph is not installed (apt-get install radosgw ceph-mon ceph-osd; scripts/setup.mjs --test does it)');
    const d = this.dir;
    const monPort = await freePort();
    this.port = await freePort();
    const fsid = randomUUID();
    for (const sub of ['run', 'mon', 'osd', 'rgw']) mkdirSync(path.join(d, sub));
    writeFileSync(
      path.join(d, 'ceph.conf'),
      `[global]
fsid = ${fsid}
mon host = v1:127.0.0.1:${monPort}
ms bind msgr2 = false
public addr = 127.0.0.1
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
osd crush chooseleaf type = 0
osd pool default pg num = 8
osd pool default pgp num = 8
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
mon data avail crit = 1
mon data avail warn = 2
run dir = ${d}/run
admin socket = ${d}/run/$name.asok
log file = ${d}/$name.log
pid file = ${d}/run/$name.pid
keyring = ${d}/keyring
[mon.a]
mon data = ${d}/mon
[osd.0]
osd data = ${d}/osd
osd objectstore = memstore
memstore device bytes = ${4 * 1024 * 1024 * 1024}
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:${this.port}
rgw data = ${d}/rgw
rgw dns name = 127.0.0.1
`,
    );
    execFileSync('ceph-authtool', ['--create-keyring', path.join(d, 'keyring'), '--gen-key', '-n', 'mon.', '--cap', 'mon', 'allow *'], { stdio: 'pipe' });
    execFileSync('monmaptool', ['--create', '--addv', 'a', `[v1:127.0.0.1:${monPort}]`, '--fsid', fsid, path.join(d, 'monmap')], { stdio: 'pipe' });
    this.run('ceph-mon', ['--mkfs', '-i', 'a', '--monmap', path.join(d, 'monmap')]);
    this.run('ceph-mon', ['-i', 'a']);
    const osdUuid = randomUUID();
    // The monitor answers commands a moment after it daemonizes (EPERM until then). The OSD registers
    // itself as it starts (by its uuid), so no `osd create` here to disagree with it.
    await this.retry(() => this.run('ceph', ['--connect-timeout', '10', 'mon', 'stat']));
    this.run('ceph-osd', ['-i', '0', '--mkfs', '--osd-uuid', osdUuid]);
    this.run('ceph-osd', ['-i', '0']);
    this.run('radosgw', ['-n', 'client.rgw']);
    const end = Date.now() + 90_000;
    for (;;) {
      try {
        const res = await fetch(this.endpoint, { signal: AbortSignal.timeout(2_000) });
        if (res.status < 500) break;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > end) throw new Error(`radosgw did not answer on ${this.endpoint}: ${this.log('client.rgw').slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    this.run('radosgw-admin', ['-n', 'client.rgw', 'user', 'create', '--uid', 'shelf-audit', '--display-name', 'shelf-audit', '--access-key', this.accessKeyId, '--secret-key', this.secretAccessKey]);
  }

  async retry(fn, ms = 30_000) {
    const end = Date.now() + ms;
    for (;;) {
      try {
        return fn();
      } catch (error) {
        if (Date.now() > end) throw error;
        await new Promise((r) => setTimeout(r, 300));
      }
    }
  }

  log(name) {
    try {
      return readFileSync(path.join(this.dir, `${name}.log`), 'utf8');
    } catch {
      return '';
    }
  }

  pid(name) {
    try {
      return Number(readFileSync(path.join(this.dir, 'run', `${name}.pid`), 'utf8').trim());
    } catch {
      return 0;
    }
  }

  /** Stops (SIGSTOP) or resumes (SIGCONT) the gateway: the bucket "slow or unreachable" for a test. */
  pause(paused = true) {
    const pid = this.pid('client.rgw');
    if (pid) process.kill(pid, paused ? 'SIGSTOP' : 'SIGCONT');
  }

  stop() {
    try {
      this.kill();
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
    }
  }

  /** Kills the daemons (SIGKILL: nothing of theirs is kept) and waits until each is gone. */
  kill() {
    for (const name of DAEMONS.slice().reverse()) {
      const pid = this.pid(name);
      if (!pid) continue;
      try {
        process.kill(pid, 'SIGCONT');
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    // Each daemon gone before its folder goes.
    for (const name of DAEMONS) {
      const pid = this.pid(name);
      for (let i = 0; pid && i < 50 && spawnSync('kill', ['-0', String(pid)]).status === 0; i++) spawnSync('sleep', ['0.1']);
    }
  }
}
