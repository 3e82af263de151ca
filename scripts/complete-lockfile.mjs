// The npm registry reachable here serves only Linux builds of packages that ship native
// binaries per platform (@swc/core-*, @unrs/resolver-binding-*). `npm install` then writes a
// lockfile without the other platforms' optional packages, and `npm ci` refuses it as out of
// sync. This adds those entries back (optional, with their os/cpu so npm skips them here).
// Run after changing dependencies: `node scripts/complete-lockfile.mjs`.
import { readFileSync, writeFileSync } from 'node:fs';

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony', 'sunos', 'aix', 'netbsd', 'openbsd'];
const CPU = ['arm64', 'x64', 'arm', 'ia32', 'ppc64', 's390x', 'riscv64', 'loong64', 'mips64el', 'wasm32'];

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    if (lock.packages[key] || lock.packages[`${path}/${key}`]) continue;
    const parts = name.split('/').pop().split('-');
    const os = parts.find((p) => OS.includes(p));
    const cpu = parts.find((p) => CPU.includes(p));
    if (!os || !cpu) continue; // not a platform binary: leave it to npm
    const record = { version, cpu: [cpu], os: [os], optional: true };
    if (parts.includes('gnu') || parts.includes('gnueabihf')) record.libc = ['glibc'];
    if (parts.includes('musl') || parts.includes('musleabihf')) record.libc = ['musl'];
    lock.packages[key] = record;
    added++;
  }
}
lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, JSON.stringify(lock, null, 2) + '\n');
console.log(`complete-lockfile: added ${added} optional platform entries`);
