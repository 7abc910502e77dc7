// Which server process answered a request, for tests of `serve --workers N`: each request goes over a
// connection of its own, and before that connection closes the server side's socket is looked up in
// Linux's /proc (its inode in /proc/net/tcp, then which process holds that inode among its open
// files). A read that never says who answered may compare one process with itself.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import http from 'node:http';

export interface Answer {
  status: number;
  body: any;
  text: string;
  /** The pid of the server process that accepted the connection and answered. */
  pid: number;
}

/** The pids of a process's children (Linux /proc). */
export function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
}

/** The inode of the TCP socket whose local port is `local` and remote port is `remote` (IPv4 and IPv6 tables). */
function socketInode(local: number, remote: number): string | undefined {
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[];
    try {
      lines = readFileSync(table, 'utf8').trim().split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      const lport = parseInt(f[1].split(':')[1], 16);
      const rport = parseInt(f[2].split(':')[1], 16);
      if (lport === local && rport === remote) return f[9];
    }
  }
  return undefined;
}

/** Which of `pids` holds socket `inode` open. */
function holderOf(inode: string, pids: number[]): number | undefined {
  const target = `socket:[${inode}]`;
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}

/**
 * Which of `pids` holds the client side of a connection that reached this process's server on
 * `serverPort` from client port `peerPort` (a request a server process made, seen by the test's server).
 */
export function clientProcess(serverPort: number, peerPort: number, pids: number[]): number | undefined {
  const inode = socketInode(peerPort, serverPort);
  return inode ? holderOf(inode, pids) : undefined;
}

/** A process's environment variable (Linux /proc). */
export function environOf(pid: number, name: string): string | undefined {
  const entry = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((e) => e.startsWith(`${name}=`));
  return entry?.slice(name.length + 1);
}

/**
 * Sends one request over a new connection, and names the process among `pids` that answered it.
 * Throws if none of them holds the server side of the connection.
 */
export function requestAnsweredBy(url: string, pids: number[], method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const target = new URL(path, url);
  // keepAlive: the connection stays open after the answer, until it is looked up.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise<Answer>((resolve, reject) => {
    const req = http.request(target, { method, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers }, agent }, (res) => {
      // Read now: once the answer has ended the socket goes back to the agent.
      const local = res.socket.localPort!;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        try {
          const inode = socketInode(Number(target.port), local);
          if (!inode) throw new Error(`no server-side socket for client port ${local}`);
          const pid = holderOf(inode, pids);
          if (pid === undefined) throw new Error(`no process among ${pids.join(', ')} holds socket ${inode}`);
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = undefined;
          try {
            parsed = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode!, body: parsed, text, pid });
        } catch (error) {
          reject(error);
        } finally {
          agent.destroy();
        }
      });
    });
    req.on('error', (e) => {
      agent.destroy();
      reject(e);
    });
    req.end(body);
  });
}
