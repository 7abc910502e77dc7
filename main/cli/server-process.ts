// Entry point of the server process (main/host/server-process.ts): what the desktop app forks as a
// utilityProcess.
import { parentChannel, serveParent } from '../host/server-process.js';

const channel = parentChannel();
if (!channel) {
  console.error('server-process: start me from the desktop app (no parent channel)');
  process.exit(2);
}
// A short pause lets the last message reach the parent before the process ends.
serveParent(channel, (code) => setTimeout(() => process.exit(code), 50));
