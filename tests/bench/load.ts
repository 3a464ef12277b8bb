/**
 * A load generator in a process of its own (argv: url, token, connections, seconds[, bodies]): GETs the url from
 * as many keep-alive connections as it is given, and prints {"requests","errors","seconds","p99Ms"} when done.
 * With a file of JSON bodies (one a line) it POSTs them instead, each connection taking the next line in turn.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';

const [url, token, connections, seconds, bodiesFile] = process.argv.slice(2) as [string, string, string, string, string?];
const bodies = bodiesFile
  ? readFileSync(bodiesFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => Buffer.from(line))
  : null;
let nextBody = 0;
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(connections) });
const deadline = performance.now() + Number(seconds) * 1000;
const latencies: number[] = [];
let errors = 0;

const get = () =>
  new Promise<void>((resolve) => {
    const t0 = performance.now();
    const body = bodies?.[nextBody++ % bodies.length];
    const headers: http.OutgoingHttpHeaders = token ? { authentication: token } : {};
    if (body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': body.length });
    const request = http.request(url, { agent, method: body ? 'POST' : 'GET', headers }, (response) => {
      response.resume();
      response.on('end', () => {
        if (response.statusCode !== 200) errors += 1;
        latencies.push(performance.now() - t0);
        resolve();
      });
    });
    request.on('error', () => {
      errors += 1;
      resolve();
    });
    request.end(body);
  });

const started = performance.now();
await Promise.all(
  Array.from({ length: Number(connections) }, async () => {
    while (performance.now() < deadline) await get();
  }),
);
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
process.stdout.write(
  JSON.stringify({ requests: latencies.length, errors, seconds: elapsed, p99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0 }) +
    '\n',
);
agent.destroy();
