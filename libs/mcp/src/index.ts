export * from './mcp-origin.js';
export * from './stateless-mcp.js';
export * from './tool-result.js';
export * from './mcp-tool.metrics.js';
export * from './mcp-tool.registry.js';
export * from './mcp-error.filter.js';
export * from './json-rpc.dto.js';
