export * from './mcp-origin.js';
export * from './stateless-mcp.js';
export * from './tool-result.js';
