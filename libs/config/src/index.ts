export * from './app-config.js';
export * from './app-config.module.js';
