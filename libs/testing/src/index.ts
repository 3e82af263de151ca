export * from './factories.js';
export * from './log-capture.js';
export * from './test-database.js';
export * from './toggle-proxy.js';
export * from './smtp-test-server.js';
export * from './stripe-test-server.js';
export * from './free-port.js';
