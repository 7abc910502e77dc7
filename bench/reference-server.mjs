// The API bench's reference server: a bare node:http server that answers every request after a fixed
// amount of CPU time (REF_US microseconds, spun on the event loop) with a body the size of a SKU page of 100
// (REF_BYTES). It does nothing else, so wrk's figures against it are the load generator's own floor on
// this machine at that cost per request: what the same 50 connections and 2 wrk threads, sharing the
// cores with one busy event loop, measure when the server's every request costs the same. Prints
// `listening on URL`, as `serve` does, so bench/serve-process.mjs's reader finds it.
import http from 'node:http';

const us = Number(process.env.REF_US ?? 170);
const body = Buffer.from(JSON.stringify({ count: 0, results: [], pad: 'x'.repeat(Math.max(0, Number(process.env.REF_BYTES ?? 23_000) - 40)) }));

const server = http.createServer((req, res) => {
  // CPU time, not wall time: a turn the process waits for a core does not count, as in the server's own figure.
  const start = process.cpuUsage();
  for (;;) {
    const used = process.cpuUsage(start);
    if (used.user + used.system >= us) break;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  console.log(`listening on http://127.0.0.1:${port}`);
});
process.on('SIGTERM', () => process.exit(0));
