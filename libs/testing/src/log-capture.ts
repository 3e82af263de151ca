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

  /**
   * Log lines that contain any of the given secrets as a whole token: not preceded or followed by a
   * letter or digit. A six-digit code is found in `"code":"805303"` or `?code=805303`, but not by
   * chance inside a millisecond timestamp (`1795805303617`) or a request id.
   */
  leaksOf(secrets: string[]): string[] {
    const patterns = secrets
      .filter((secret) => secret && secret.length >= 6)
      .map((secret) => new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(secret)}(?![A-Za-z0-9])`));
    return this.lines.filter((line) => patterns.some((pattern) => pattern.test(line)));
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
