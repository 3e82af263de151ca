import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./openapi-validator-cli.mjs', import.meta.url));

/** Validates a document with @apidevtools/swagger-parser; returns 'valid' or the parser's complaint. */
export function validateOpenApi(document: unknown): string {
  const result = spawnSync(process.execPath, [SCRIPT], { input: JSON.stringify(document), encoding: 'utf8', timeout: 60_000 });
  return (result.stdout || result.stderr).trim();
}
