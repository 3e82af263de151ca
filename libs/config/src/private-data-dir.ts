import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Bits that let the group or anyone else read, write or enter. */
const GROUP_AND_OTHER = 0o077;

/**
 * DATA_DIR holds the embedded database's files, the generated JWT secret and the mail outbox:
 * nobody but the service's own user may read or write any of it. Creates the directory 0700,
 * takes the group and other bits off everything already under it (symlinks are left alone: their
 * targets are not ours), and returns the paths it had to fix so the caller can say so.
 * New files stay private because the runner sets the process umask to 077 before this runs
 * (PGlite's first-start files are chmod-ed 0666 past the umask: EmbeddedPostgres calls this again).
 */
export function makeDataDirPrivate(dataDir: string): string[] {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const fixed: string[] = [];
  const visit = (path: string) => {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return;
    if ((stats.mode & GROUP_AND_OTHER) !== 0) {
      chmodSync(path, stats.mode & 0o700);
      fixed.push(path);
    }
    if (stats.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
  };
  visit(dataDir);
  return fixed;
}
