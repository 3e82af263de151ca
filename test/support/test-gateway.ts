import { spawn } from 'node:child_process';
import { chmodSync, closeSync, copyFileSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Debian's nginx, or NGINX_BIN. */
export const NGINX_BIN = process.env.NGINX_BIN ?? '/usr/sbin/nginx';
/** The shipped gateway configuration (gateway.conf, gateway.test.conf.template and the files they include). */
export const NGINX_DIR = join(process.cwd(), 'docker', 'nginx');
const INCLUDED_FILES = ['gateway-http.conf', 'gateway-routes.conf'];
const READY_WITHIN_MS = 10_000;

/** A fresh nginx prefix holding `topLevel` as gateway.conf, beside the files it includes. */
export function prepareGatewayPrefix(topLevel: string, label = 'gateway'): { prefix: string; conf: string } {
  const prefix = mkdtempSync(join(tmpdir(), `${label}-`));
  // As root, nginx workers run as `nobody` and must reach the prefix.
  if (process.getuid?.() === 0) chmodSync(prefix, 0o755);
  for (const file of INCLUDED_FILES) copyFileSync(join(NGINX_DIR, file), join(prefix, file));
  const conf = join(prefix, 'gateway.conf');
  writeFileSync(conf, topLevel);
  return { prefix, conf };
}

/**
 * nginx opens `/dev/stdout` for the access log, which fails (ENXIO) when stdout is a socket, as
 * Node's stdio pipes are: it gets a file in its prefix instead (as it gets a pipe or a tty under Docker).
 */
export function gatewayStdout(prefix: string): number {
  return openSync(join(prefix, 'stdout.log'), 'a');
}

export interface TestGateway {
  readonly port: number;
  /** The last 20,000 characters nginx wrote to stderr. */
  output(): string;
  /** SIGTERM (SIGKILL after 5 s), then the prefix removed. */
  stop(): Promise<void>;
}

/**
 * nginx in the foreground, as a child of the test process, on `config` (a rendered
 * gateway.test.conf.template listening on `port`); resolves once `readyPath` answers 200 through it.
 */
export async function startTestGateway(options: { config: string; port: number; readyPath: string; label: string }): Promise<TestGateway> {
  const { prefix, conf } = prepareGatewayPrefix(options.config, options.label);
  const stdout = gatewayStdout(prefix);
  const nginx = spawn(NGINX_BIN, ['-e', 'stderr', '-p', `${prefix}/`, '-c', conf, '-g', 'daemon off;'], { stdio: ['ignore', stdout, 'pipe'] });
  closeSync(stdout); // the child holds its own copy
  const killOnExit = (): void => {
    nginx.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  let output = '';
  nginx.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString('utf8')).slice(-20_000)));

  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    if (nginx.exitCode === null && nginx.signalCode === null) {
      const exited = new Promise<void>((done) => nginx.once('exit', () => done()));
      nginx.kill('SIGTERM'); // fast shutdown of master and workers
      const timer = setTimeout(() => nginx.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(prefix, { recursive: true, force: true });
  };

  const deadline = Date.now() + READY_WITHIN_MS;
  for (;;) {
    if (nginx.exitCode !== null || nginx.signalCode !== null) {
      await stop();
      throw new Error(`nginx exited (${nginx.exitCode ?? nginx.signalCode}):\n${output}`);
    }
    const status = await fetch(`http://127.0.0.1:${options.port}${options.readyPath}`).then((reply) => reply.status, () => 0);
    if (status === 200) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`nginx did not answer ${options.readyPath} within ${READY_WITHIN_MS} ms:\n${output}`);
    }
    await sleep(100);
  }
  return { port: options.port, output: () => output, stop };
}
