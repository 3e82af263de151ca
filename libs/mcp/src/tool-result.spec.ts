import { describe, expect, it } from '@jest/globals';
import { AppException, ErrorCode } from '#libs/common';
import { runTool, toolError, toolResult } from './tool-result.js';

describe('MCP tool results', () => {
  it('carries data as structuredContent and as a JSON text block', () => {
    const result = toolResult({ todo: { id: 1 } });
    expect(result.structuredContent).toEqual({ todo: { id: 1 } });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ todo: { id: 1 } });
    expect(result.isError).toBeUndefined();
  });

  it('turns an AppException into isError with the REST code in the text', () => {
    const result = toolError(new AppException(ErrorCode.NOT_FOUND, 'No such todo'));
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toContain('NOT_FOUND');
  });

  it('hides unexpected errors behind INTERNAL_ERROR', async () => {
    const result = await runTool(async () => {
      throw new Error('SELECT secret FROM somewhere failed');
    });
    expect(result.isError).toBe(true);
    const text = (result.content[0] as { text: string }).text;
    expect(text).toContain('INTERNAL_ERROR');
    expect(text).not.toContain('SELECT');
  });
});
