import { describe, expect, it } from '@jest/globals';
import { CLIENT_METADATA_REFUSAL, ClientMetadataRefusals } from './oauth-client-metadata-documents.js';

describe('ClientMetadataRefusals', () => {
  it('refuses a URL for the refusal period, not longer, and a refusal does not extend itself', () => {
    let now = 1_000_000;
    const refusals = new ClientMetadataRefusals(() => now);
    refusals.refuse('https://a.example/doc');
    expect(refusals.refused('https://a.example/doc')).toBe(true);
    expect(refusals.refused('https://b.example/doc')).toBe(false);
    now += CLIENT_METADATA_REFUSAL.seconds * 1000 - 1;
    refusals.refuse('https://a.example/doc');
    now += 1;
    expect(refusals.refused('https://a.example/doc')).toBe(false);
  });

  it('keeps at most maxEntries refusals, dropping the oldest', () => {
    const refusals = new ClientMetadataRefusals();
    for (let i = 0; i <= CLIENT_METADATA_REFUSAL.maxEntries; i++) refusals.refuse(`https://a.example/${i}`);
    expect(refusals.refused('https://a.example/0')).toBe(false);
    expect(refusals.refused('https://a.example/1')).toBe(true);
    expect(refusals.refused(`https://a.example/${CLIENT_METADATA_REFUSAL.maxEntries}`)).toBe(true);
  });
});
