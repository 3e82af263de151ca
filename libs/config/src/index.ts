export * from './app-config.js';
export * from './environment.js';
export * from './app-config.module.js';
export * from './private-data-dir.js';
