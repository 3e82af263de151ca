import { createServer, type Server } from 'node:net';
import { afterAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { loadConfig } from '#libs/config';
import { LogCapture } from '#libs/testing';
import { ServiceIndex } from '../http/service-index.module.js';
import { portProblem, probePort, publicUrlMismatch } from './service-runner.js';
import { announceStart, describeDatabase, localUrl, startBlock, type StartedService } from './start-block.js';

function started(logs = new LogCapture()): StartedService & { logs: LogCapture } {
  const index = new ServiceIndex({
    service: 'feedback-export',
    title: 'Feedback Export API',
    publicBaseUrl: 'https://feedback.example.com',
    pages: { Dashboard: '/dashboard', 'Widget script': '/widget.js' },
    unsetFeatures: ['SMTP_URL is unset: answered-batch notifications go to the log and .data/outbox/'],
  });
  return { index, url: 'http://localhost:3001', database: 'embedded PostgreSQL (PGlite) in .data/pg', logger: pino({ base: { service: 'feedback-export' } }, logs), readySeconds: 2.345, logs };
}

describe('start block', () => {
  it('names the database without its password', () => {
    expect(describeDatabase('postgres://app:s3cret-pass@db.internal:6432/todo', '/srv/.data/pg')).toBe('PostgreSQL at db.internal:6432/todo as app');
    expect(describeDatabase('postgresql://db.internal/app', '/srv/.data/pg')).toBe('PostgreSQL at db.internal:5432/app');
    expect(describeDatabase(undefined, `${process.cwd()}/.data/pg`)).toBe('embedded PostgreSQL (PGlite) in .data/pg');
    expect(describeDatabase(undefined, '/var/lib/app/pg')).toBe('embedded PostgreSQL (PGlite) in /var/lib/app/pg');
  });

  it('names a public URL on this machine whose port is not the listener\'s, and leaves a gateway\'s alone', () => {
    const todo = { name: 'todo-api', portVariable: 'TODO_API_PORT' as const };
    const feedback = { name: 'feedback-export', portVariable: 'FEEDBACK_API_PORT' as const };
    const config = loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40), PUBLIC_BASE_URL: 'http://localhost:3000', FEEDBACK_PUBLIC_BASE_URL: 'http://127.0.0.1:4101' });
    expect(publicUrlMismatch(todo, config, 4100)).toBe(
      'PUBLIC_BASE_URL (http://localhost:3000) names port 3000 of this machine but the service listens on 4100; links, the OAuth issuer and sign-in will point at the wrong port: unset PUBLIC_BASE_URL (it follows TODO_API_PORT outside production) or correct it.',
    );
    expect(publicUrlMismatch(feedback, config, 4101)).toBeUndefined();
    expect(publicUrlMismatch(feedback, { ...config, feedbackPublicBaseUrl: 'http://[::1]/' }, 4101)).toContain('names port 80');
    expect(publicUrlMismatch(todo, { ...config, publicBaseUrl: 'https://todo.example.com' }, 4100)).toBeUndefined();
  });

  it('shows a wildcard listening address as localhost', () => {
    expect(localUrl('0.0.0.0', 3000)).toBe('http://localhost:3000');
    expect(localUrl('::', 3000)).toBe('http://localhost:3000');
    expect(localUrl('127.0.0.1', 3001)).toBe('http://127.0.0.1:3001');
    expect(localUrl('::1', 3001)).toBe('http://[::1]:3001');
  });

  it('pretty: one short block with the listening URLs, the database and every unset feature', () => {
    const block = startBlock(started());
    expect(block.split('\n')).toEqual([
      `feedback-export ready in 2.3 s (Node ${process.version})`,
      '  API base       http://localhost:3001/api/v1',
      '  Swagger UI     http://localhost:3001/api/docs',
      '  OpenAPI JSON   http://localhost:3001/api/v1/openapi.json',
      '  Dashboard      http://localhost:3001/dashboard',
      '  Widget script  http://localhost:3001/widget.js',
      '  Database       embedded PostgreSQL (PGlite) in .data/pg',
      '  ! SMTP_URL is unset: answered-batch notifications go to the log and .data/outbox/',
      '',
    ]);
  });

  it('json: one info line with the links and database, one warn line per unset feature, under the app’s service', () => {
    const app = started();
    announceStart(app, 'json');
    const lines = app.logs.lines.map((line) => JSON.parse(line));
    expect(lines).toEqual([
      expect.objectContaining({
        level: 30,
        service: 'feedback-export',
        msg: 'feedback-export ready at http://localhost:3001',
        node: process.version,
        database: 'embedded PostgreSQL (PGlite) in .data/pg',
        links: expect.arrayContaining([{ name: 'Swagger UI', href: 'http://localhost:3001/api/docs' }, { name: 'Dashboard', href: 'http://localhost:3001/dashboard' }]),
      }),
      expect.objectContaining({ level: 40, service: 'feedback-export', msg: 'SMTP_URL is unset: answered-batch notifications go to the log and .data/outbox/' }),
    ]);
  });
});

describe('taken port', () => {
  let holder: Server;
  afterAll(() => new Promise((resolve) => holder?.close(resolve)));

  it('is found before start and told in one line naming the variable to change', async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    const error = await probePort(port, '127.0.0.1').then(() => undefined, (caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'EADDRINUSE' });
    const config = loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(40), HOST: '127.0.0.1', TODO_API_PORT: String(port) });
    const line = portProblem({ name: 'todo-api', port: (c) => c.todoApiPort, portVariable: 'TODO_API_PORT', create: () => Promise.reject(new Error('unused')) }, config, error);
    expect(line).toBe(`todo-api: port ${port} on 127.0.0.1 is already in use; set TODO_API_PORT to a free port (e.g. TODO_API_PORT=${port + 100}).`);
    expect(line).not.toContain('\n');
    // A free port passes the probe; other errors are not port problems.
    await expect(probePort(0, '127.0.0.1')).resolves.toBeUndefined();
    expect(portProblem({ name: 'todo-api', port: () => port, portVariable: 'TODO_API_PORT', create: () => Promise.reject(new Error('unused')) }, config, new Error('boom'))).toBeUndefined();
  });
});
