/**
 * The forwarding benchmarks' target: a local HTTP server that answers 200 to every POST once its body is read, and
 * counts the messages (a batching server's POST carries `x-message-count` of them, any other one). It runs in a child process of its own, as a real target runs elsewhere: its work is not the platform's.
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HttpSink {
  url: string;
  /** Messages answered so far (as last reported by the child: `count()` asks anew). */
  count(): Promise<number>;
  close(): Promise<void>;
}

/** Starts the sink in a child process; its count is asked for over the IPC channel. */
export async function startHttpSink(): Promise<HttpSink> {
  const child = fork(new URL(import.meta.url).pathname, ['serve'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the HTTP sink exited (${code})`)));
  });
  return {
    url: `http://127.0.0.1:${port}/ingest`,
    count: () =>
      new Promise<number>((resolve) => {
        child.once('message', (m) => resolve((m as { received: number }).received));
        child.send('count');
      }),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

if (process.argv[2] === 'serve') {
  let received = 0;
  const server = createServer((req, res) => {
    const messages = Number(req.headers['x-message-count'] ?? 1);
    req.resume();
    req.on('end', () => {
      received += messages;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', () => process.send!({ received }));
}
