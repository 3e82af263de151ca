import type { INestApplication } from '@nestjs/common';
import { loadConfig, type AppConfig } from '#libs/config';
import { EmbeddedPostgres } from '#libs/database';

export interface RunningService {
  app: INestApplication;
  name: string;
  port: number;
}

/** Connections the embedded server must accept: per app, its pool, the rate-limit pool (4), the LISTEN connection and headroom. */
function embeddedConnectionBudget(config: AppConfig, apps: number): number {
  return (config.dbPoolSize + 8) * apps;
}

/**
 * Starts services in this process: DATABASE_URL when set, else the embedded database
 * under DATA_DIR. On SIGINT/SIGTERM it closes the apps (and their pools) first, then the
 * embedded server.
 */
export async function runServices(
  starters: Array<{ name: string; port: (config: AppConfig) => number; create: (config: AppConfig, databaseUrl: string) => Promise<INestApplication> }>,
): Promise<RunningService[]> {
  let config: AppConfig;
  try {
    config = loadConfig();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  let embedded: EmbeddedPostgres | undefined;
  let databaseUrl = config.databaseUrl;
  if (!databaseUrl) {
    embedded = await EmbeddedPostgres.start({ dataDir: `${config.dataDir}/pg`, maxConnections: embeddedConnectionBudget(config, starters.length) });
    databaseUrl = embedded.url;
  }
  const running: RunningService[] = [];
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(JSON.stringify({ level: 'info', msg: `Received ${signal}; shutting down` }));
    for (const service of running) await service.app.close().catch(() => undefined);
    await embedded?.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  try {
    for (const starter of starters) {
      const app = await starter.create(config, databaseUrl);
      const port = starter.port(config);
      await app.listen(port, config.host);
      running.push({ app, name: starter.name, port });
      console.log(JSON.stringify({ level: 'info', msg: `${starter.name} listening`, url: `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}` }));
    }
  } catch (error) {
    console.error(error);
    for (const service of running) await service.app.close().catch(() => undefined);
    await embedded?.stop();
    process.exit(1);
  }
  return running;
}
