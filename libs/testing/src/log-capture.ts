import { Writable } from 'node:stream';

/** Collects an app's JSON log lines in memory, so tests can assert what was (not) logged. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) this.lines.push(line);
    callback();
  }

  text(): string {
    return this.lines.join('\n');
  }

  /** Log lines that contain any of the given secrets. */
  leaksOf(secrets: string[]): string[] {
    const present = secrets.filter((secret) => secret && secret.length >= 6);
    return this.lines.filter((line) => present.some((secret) => line.includes(secret)));
  }
}
