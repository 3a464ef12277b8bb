/**
 * An HTTP/1.1 load generator in a process of its own (argv: url, token, connections, seconds[, bodies]): raw
 * keep-alive sockets writing pre-encoded requests (a GET of the url, or with a file of JSON bodies, one a line,
 * POSTs of them, each request taking the next line in turn), `BENCH_HTTP_PIPELINE` requests in flight a connection
 * (HTTP/1.1 pipelining; default 1, one request waits for its answer). Prints
 * {"requests","errors","seconds","p99Ms","histogram"} when done: requests answered, those not 200 or lost with their
 * connection, and the latencies (send to whole answer, microseconds) as an encoded HDR histogram, so that several
 * processes' figures add up (`merged` of latency.ts).
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { encode, histogram, percentileMs, record } from './latency.ts';

const [url, token, connections, seconds, bodiesFile] = process.argv.slice(2) as [string, string, string, string, string?];
const depth = Math.max(1, Number(process.env.BENCH_HTTP_PIPELINE ?? 1));
const target = new URL(url);
const head = (method: string, extra: string) =>
  `${method} ${target.pathname}${target.search} HTTP/1.1\r\nhost: ${target.host}\r\nconnection: keep-alive\r\n` +
  (token ? `authentication: ${token}\r\n` : '') +
  extra +
  '\r\n';
/** Every request's bytes, encoded once before the clock starts. */
const requests: Buffer[] = bodiesFile
  ? readFileSync(bodiesFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => {
        const body = Buffer.from(line);
        const extra = `content-type: application/json\r\ncontent-length: ${body.length}\r\n`;
        return Buffer.concat([Buffer.from(head('POST', extra), 'latin1'), body]);
      })
  : [Buffer.from(head('GET', ''), 'latin1')];
let next = 0;
const CRLF2 = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');
const latencies = histogram();
let answered = 0;
let errors = 0;
const deadline = performance.now() + Number(seconds) * 1000;

/**
 * The length of the first whole response in `buf` from `at` and its status, or null while it is incomplete
 * (content-length or chunked bodies; the generator's own targets send one or the other).
 */
function response(buf: Buffer, at: number): { end: number; status: number } | null {
  const headEnd = buf.indexOf(CRLF2, at);
  if (headEnd < 0) return null;
  const status = Number(buf.toString('latin1', at + 9, at + 12));
  const headers = buf.toString('latin1', at, headEnd).toLowerCase();
  const length = /\r\ncontent-length: *(\d+)/.exec(headers);
  let end = headEnd + 4;
  if (length) end += Number(length[1]);
  else if (headers.includes('transfer-encoding: chunked'))
    for (;;) {
      const line = buf.indexOf(CRLF, end);
      if (line < 0) return null;
      const size = parseInt(buf.toString('latin1', end, line), 16);
      end = line + 2 + size + 2;
      if (size === 0) break;
    }
  return end <= buf.length ? { end, status } : null;
}

/** One connection: keeps `depth` requests in flight until the deadline, then waits for their answers. */
const lane = () =>
  new Promise<void>((resolve) => {
    const sentAt: number[] = [];
    let pending: Buffer = Buffer.alloc(0);
    const socket = net.connect(Number(target.port || 80), target.hostname);
    socket.setNoDelay(true);
    const send = () => {
      sentAt.push(performance.now());
      socket.write(requests[next++ % requests.length]!);
    };
    const fill = () => {
      socket.cork();
      while (sentAt.length < depth && performance.now() < deadline) send();
      socket.uncork();
      if (sentAt.length === 0) socket.end();
    };
    socket.on('connect', fill);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let at = 0;
      for (let r = response(pending, at); r; r = response(pending, at)) {
        record(latencies, performance.now() - sentAt.shift()!);
        answered += 1;
        if (r.status !== 200) errors += 1;
        at = r.end;
      }
      pending = at === 0 ? pending : pending.subarray(at);
      fill();
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      // Requests the connection took with it are errors; a connection lost before the deadline is opened again.
      errors += sentAt.length;
      answered += sentAt.length;
      if (performance.now() < deadline) void lane().then(resolve);
      else resolve();
    });
  });

const started = performance.now();
await Promise.all(Array.from({ length: Number(connections) }, lane));
const elapsed = (performance.now() - started) / 1000;
process.stdout.write(
  JSON.stringify({
    requests: answered,
    errors,
    seconds: elapsed,
    p99Ms: percentileMs(latencies, 99),
    histogram: encode(latencies),
  }) + '\n',
);
