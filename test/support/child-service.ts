import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

/** A built entry point started as a real child process, its standard output and error kept apart. */
export interface ChildService {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Waits until each port answers /livez with 200 (throws with the output if the process ends first). */
  ready(ports: number[], timeoutMs?: number): Promise<void>;
  /** SIGTERM, then the exit. */
  stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `entry` with exactly `env` (plus PATH): nothing of the test runner's environment leaks in. */
export function startChild(entry: string, env: Record<string, string>): ChildService {
  let out = '';
  let err = '';
  const child = spawn(process.execPath, [entry], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async ready(ports, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      for (const port of ports) {
        while ((await fetch(`http://127.0.0.1:${port}/livez`).then((res) => res.status, () => 0)) !== 200) {
          if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the service did not start:\n${out}\n${err}`);
          await sleep(100);
        }
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
