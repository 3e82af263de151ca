export * from './data-source-options.js';
export * from './database-flavour.js';
export * from './database.module.js';
export * from './embedded-postgres.js';
export * from './run-migrations.js';
export * from './prepared-queries.js';
export * from './sql-executor.js';
export * from './fail-fast-client.js';
