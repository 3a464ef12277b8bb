/**
 * The `ota-bookkeeping` bench's websocket listener (issue 21), forked by the bench (startOtaListener) so that hearing
 * and parsing the feed costs the platform's process nothing: in its process it took about 2% of the main thread the
 * bench measures, and its 75,000 heard changes were the platform's garbage. Driven over IPC: `listen` opens the
 * tenant's `ota.progress` channel and answers once it is open; `collect` answers every downloading change heard so
 * far (device, percent, and when: epoch ms, comparable with the generator's due times); `stop` ends the process.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { channelMessages, type OtaProgressFeed } from '@iot/contracts';
import { epochNow } from './schedule.ts';

/** What the listener heard: parallel arrays (one IPC message, not 75,000 objects). */
export interface Heard {
  deviceIds: string[];
  percents: number[];
  ats: number[];
  frames: number;
}

type Request = { op: 'listen'; url: string; token: string } | { op: 'collect' } | { op: 'stop' };
type Answer = { ready: true } | { listening: true } | { heard: Heard } | { failed: string };

if (process.send && process.argv[2] === 'child') {
  const heard: Heard = { deviceIds: [], percents: [], ats: [], frames: 0 };
  let socket: WebSocket | null = null;
  const answer = (message: Answer) => process.send!(message);
  process.on('message', (request: Request) => {
    if (request.op === 'listen') {
      socket = new WebSocket(request.url, { headers: { authentication: request.token } });
      socket.on('message', (data) => {
        const at = epochNow();
        heard.frames += 1;
        for (const m of channelMessages(String(data)) as OtaProgressFeed[])
          if (m.type === 'device' && m.stage === 'downloading' && typeof m.percent === 'number') {
            heard.deviceIds.push(m.deviceId);
            heard.percents.push(m.percent);
            heard.ats.push(at);
          }
      });
      socket.once('open', () => answer({ listening: true }));
      socket.once('error', (error) => answer({ failed: error.message }));
    } else if (request.op === 'collect') answer({ heard });
    else {
      socket?.close();
      process.exit(0);
    }
  });
  answer({ ready: true });
}

/** Forks the listener and opens the channel at `url` with the tenant's `token`; resolves once it listens. */
export async function startOtaListener(url: string, token: string) {
  const child = fork(fileURLToPath(import.meta.url), ['child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const waiting: Array<(answer: Answer) => void> = [];
  child.on('message', (message: Answer) => waiting.shift()?.(message));
  const next = () => new Promise<Answer>((resolve) => waiting.push(resolve));
  const ask = (request: Request) => {
    const answered = next();
    child.send(request);
    return answered;
  };
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await next();
  const opened = await ask({ op: 'listen', url, token });
  if ('failed' in opened) throw new Error(`the OTA listener could not listen: ${opened.failed}`);
  return {
    async collect(): Promise<Heard> {
      const answered = await ask({ op: 'collect' });
      if (!('heard' in answered)) throw new Error('the OTA listener answered no changes');
      return answered.heard;
    },
    async stop() {
      if (child.exitCode === null) child.send({ op: 'stop' } satisfies Request);
      await exited;
    },
  };
}
