export * from './mail.module.js';
export * from './mail.service.js';
