import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { sourceFiles } from '../support/source-files.js';

describe('response mappers live in one place (CONTRIBUTING: each beside its response DTO in the feature dto/ folder)', () => {
  const root = process.cwd();
  const files = sourceFiles(join(root, 'apps')).map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }));

  it('declares every toXxxDto mapper in a dto/ file', () => {
    const declaredElsewhere = files.filter((file) => !file.path.includes('/dto/') && /function to[A-Z]\w*Dtos?\(/.test(file.text)).map((file) => file.path);
    expect(declaredElsewhere).toEqual([]);
  });

  it('declares no mapper in a service, whatever its name (toConnectedApps was one)', async () => {
    const mappingServices = files.filter((file) => file.path.endsWith('.service.ts') && /^(export )?function to[A-Z]\w*\(/m.test(file.text)).map((file) => file.path);
    expect(mappingServices).toEqual([]);
  });

  it('leaves mapping out of controllers: they return what the service answered', () => {
    const mappingControllers = files.filter((file) => file.path.endsWith('.controller.ts') && /\bto[A-Z]\w*Dtos?\b/.test(file.text)).map((file) => file.path);
    expect(mappingControllers).toEqual([]);
  });
});
