import { describe, expect, it } from '@jest/globals';
import { eventIdOf, sequenceOfEventId } from './webhook-event-id.js';

describe('event ids', () => {
  it('are evt_ and the log sequence, and read back from either form', () => {
    expect(eventIdOf('42')).toBe('evt_42');
    expect(sequenceOfEventId('evt_42')).toBe('42');
    expect(sequenceOfEventId('42')).toBe('42');
  });

  it('refuse anything else', () => {
    for (const value of [undefined, '', 'evt_', 'evt_x1', 'evt_test_abc', '-1', '1'.repeat(19), 'evt_evt_1']) expect(sequenceOfEventId(value)).toBeUndefined();
  });
});
