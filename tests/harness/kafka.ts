import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import kafkajs from 'kafkajs';
import type { EngineHandle } from './engines.ts';
import { freePort, waitForPort } from './free-port.ts';

/**
 * A real Apache Kafka broker for tests, in KRaft mode (broker and controller in one JVM), run from
 * Apache's jars on Maven Central. The jars are fetched once by `mvn` into tests/.engines/kafka/.
 * Use through resolveEngine('Kafka', 'KAFKA_BROKERS', startKafka); `url` is a broker list (host:port).
 */
const here = dirname(fileURLToPath(import.meta.url));
export const kafkaPom = join(here, 'kafka-pom.xml');
/** The Kafka version is the pom's `kafka.version` property: one place to bump it. */
export const kafkaVersion = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(readFileSync(kafkaPom, 'utf8'))?.[1] ?? '3.9.2';
export const kafkaLibs = resolve(here, '..', '.engines', 'kafka', kafkaVersion, 'libs');

const run = promisify(execFile);

/** Fetches Kafka's runtime jars with mvn unless they are cached already. */
export async function ensureKafkaJars(): Promise<string> {
  const complete = join(kafkaLibs, '.complete');
  if (existsSync(complete)) return kafkaLibs;
  const staging = `${kafkaLibs}.${process.pid}.tmp`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(dirname(kafkaLibs), { recursive: true });
  try {
    await run(
      'mvn',
      ['-q', '-B', '-f', kafkaPom, 'dependency:copy-dependencies', '-DincludeScope=runtime', `-DoutputDirectory=${staging}`],
      { maxBuffer: 16 * 1024 * 1024, timeout: 10 * 60_000 },
    );
  } catch (error) {
    const e = error as NodeJS.ErrnoException & {
      stdout?: string;
      stderr?: string;
    };
    if (e.code === 'ENOENT') throw new Error('mvn is not installed (needed once to fetch Kafka jars from Maven Central)', { cause: error });
    throw new Error(`mvn could not fetch Kafka ${kafkaVersion} jars: ${(e.stdout ?? '') + (e.stderr ?? '') || e.message}`.slice(0, 2000), {
      cause: error,
    });
  }
  await writeFile(join(staging, '.complete'), `${kafkaVersion}\n`);
  await rm(kafkaLibs, { recursive: true, force: true });
  await rename(staging, kafkaLibs);
  return kafkaLibs;
}

/** Kafka's Uuid: 16 random bytes, base64url; Kafka itself never hands out one that starts with '-'. */
const clusterId = (): string => {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
};

const log4j = `log4j.rootLogger=WARN, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=\${kafka.logs.dir}/server.log
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
`;

export interface KafkaOptions {
  /** Partitions of auto-created topics. */
  partitions?: number;
  /** JVM heap ceiling. */
  heap?: string;
}

export async function startKafka(options: KafkaOptions = {}): Promise<EngineHandle> {
  const java = process.env.JAVA_HOME ? join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
  await run(java, ['-version']).catch(() => {
    throw new Error('java is not installed (Kafka needs Java 17: apt-get install -y openjdk-17-jre-headless)');
  });
  const libs = await ensureKafkaJars();
  const dir = await mkdtemp(join(tmpdir(), 'kafka-'));
  const [port, controllerPort] = [await freePort(), await freePort()];
  const properties = join(dir, 'server.properties');
  await writeFile(
    properties,
    [
      'process.roles=broker,controller',
      'node.id=1',
      `controller.quorum.voters=1@127.0.0.1:${controllerPort}`,
      `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}`,
      `advertised.listeners=PLAINTEXT://127.0.0.1:${port}`,
      'controller.listener.names=CONTROLLER',
      'inter.broker.listener.name=PLAINTEXT',
      'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
      `log.dirs=${join(dir, 'data')}`,
      `num.partitions=${options.partitions ?? 6}`,
      'offsets.topic.replication.factor=1',
      'offsets.topic.num.partitions=4',
      'transaction.state.log.replication.factor=1',
      'transaction.state.log.min.isr=1',
      // A test's consumers should not wait the default 3 s for more members before the first rebalance.
      'group.initial.rebalance.delay.ms=0',
      'auto.create.topics.enable=true',
      'log.flush.interval.messages=9223372036854775807',
      '',
    ].join('\n'),
  );
  await writeFile(join(dir, 'log4j.properties'), log4j);
  const jvm = [
    `-Xmx${options.heap ?? '512m'}`,
    '-Xms128m',
    '-XX:+UseSerialGC',
    '-Djava.awt.headless=true',
    `-Dkafka.logs.dir=${dir}`,
    `-Dlog4j.configuration=file:${join(dir, 'log4j.properties')}`,
    '-cp',
    `${libs}/*`,
  ];
  try {
    await run(java, [...jvm, 'kafka.tools.StorageTool', 'format', '-t', clusterId(), '-c', properties], { timeout: 60_000 });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw new Error(`kafka-storage format failed: ${(error as Error).message}`, { cause: error });
  }

  const broker: ChildProcess = spawn(java, [...jvm, 'kafka.Kafka', properties], { stdio: ['ignore', 'ignore', 'ignore'] });
  let exited = false;
  const exit = new Promise<void>((done) => broker.once('exit', () => ((exited = true), done())));
  const killOnExit = (): void => void broker.kill('SIGKILL');
  process.once('exit', killOnExit);
  const url = `127.0.0.1:${port}`;

  const stop = async (): Promise<void> => {
    process.off('exit', killOnExit);
    if (!exited) {
      broker.kill('SIGTERM');
      const timer = setTimeout(() => broker.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  try {
    await waitForPort(port, 60_000, '127.0.0.1', () => !exited);
    await waitUntilServing(url, 30_000);
  } catch (error) {
    const log = await readFile(join(dir, 'server.log'), 'utf8').catch(() => '');
    await stop();
    throw new Error(`Kafka ${kafkaVersion} did not start: ${(error as Error).message}\n${log.slice(-3000)}`, { cause: error });
  }
  return { url, stop };
}

/** The port opens before the broker has registered with its controller: wait for a metadata answer naming it. */
async function waitUntilServing(url: string, timeoutMs: number): Promise<void> {
  const admin = new kafkajs.Kafka({
    brokers: [url],
    logLevel: kafkajs.logLevel.NOTHING,
    retry: { retries: 0 },
  }).admin();
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        await admin.connect();
        const cluster = await admin.describeCluster();
        if (cluster.brokers.length > 0 && cluster.controller !== null && cluster.controller >= 0) return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
      if (Date.now() > deadline) throw new Error(`no broker registered after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await admin.disconnect().catch(() => undefined);
  }
}
