import { describe, expect, it } from '@jest/globals';
import { BackgroundWork } from './background-work.js';

describe('BackgroundWork', () => {
  it('settles once every tracked piece has finished, a failed one included', async () => {
    const work = new BackgroundWork();
    const finished: string[] = [];
    work.track(new Promise<void>((resolve) => setTimeout(() => { finished.push('slow'); resolve(); }, 20)));
    work.track(new Promise<void>((_, reject) => setTimeout(() => { finished.push('failed'); reject(new Error('no mail')); }, 5)));
    await work.settled();
    expect(finished.sort()).toEqual(['failed', 'slow']);
  });

  it('settles at once when nothing runs', async () => {
    await expect(new BackgroundWork().settled()).resolves.toBeUndefined();
  });
});
