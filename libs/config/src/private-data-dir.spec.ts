import { afterEach, describe, expect, it } from '@jest/globals';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDataDirPrivate } from './private-data-dir.js';

const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('makeDataDirPrivate', () => {
  let root: string;
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('creates a missing directory 0700', () => {
    root = mkdtempSync(join(tmpdir(), 'data-dir-'));
    const dataDir = join(root, 'nested', '.data');
    expect(makeDataDirPrivate(dataDir)).toEqual([]);
    expect(modeOf(dataDir)).toBe(0o700);
  });

  it('takes group and other bits off every directory and file under it, and names what it fixed', () => {
    root = mkdtempSync(join(tmpdir(), 'data-dir-'));
    const dataDir = join(root, '.data');
    mkdirSync(join(dataDir, 'pg', 'pgdata'), { recursive: true });
    writeFileSync(join(dataDir, 'pg', 'pgdata', 'pg_hba.conf'), 'x');
    writeFileSync(join(dataDir, 'jwt-secret'), 'x');
    for (const path of [dataDir, join(dataDir, 'pg'), join(dataDir, 'pg', 'pgdata')]) chmodSync(path, 0o777);
    chmodSync(join(dataDir, 'pg', 'pgdata', 'pg_hba.conf'), 0o666);
    chmodSync(join(dataDir, 'jwt-secret'), 0o600);
    const outside = join(root, 'outside');
    writeFileSync(outside, 'x');
    chmodSync(outside, 0o644);
    symlinkSync(outside, join(dataDir, 'link'));

    const fixed = makeDataDirPrivate(dataDir);

    expect(fixed.sort()).toEqual([dataDir, join(dataDir, 'pg'), join(dataDir, 'pg', 'pgdata'), join(dataDir, 'pg', 'pgdata', 'pg_hba.conf')].sort());
    expect(modeOf(dataDir)).toBe(0o700);
    expect(modeOf(join(dataDir, 'pg', 'pgdata'))).toBe(0o700);
    expect(modeOf(join(dataDir, 'pg', 'pgdata', 'pg_hba.conf'))).toBe(0o600);
    expect(modeOf(join(dataDir, 'jwt-secret'))).toBe(0o600);
    // A symlink's target is not ours to change.
    expect(modeOf(outside)).toBe(0o644);
    expect(makeDataDirPrivate(dataDir)).toEqual([]);
  });
});
