import { ShareTokenSealer } from '../../apps/feedback-export/src/questions/share-token.js';
import type { TestApp } from '../support/test-apps.js';

export { bearer, createOwner, createSite, type TestOwner, type TestSite } from '../feedback/feedback-fixtures.js';

export const sampleQuestions = (count = 3) =>
  Array.from({ length: count }, (_, i) => ({ n: i + 1, title: `Question ${i + 1}`, html: `<p>Body of <em>question</em> ${i + 1}</p>` }));

/** The share token of any batch (drafts included), read back from the database as the service would. */
export async function shareTokenOf(t: TestApp, batchId: string): Promise<string> {
  const rows = await t.dataSource.query(`SELECT share_token_sealed AS sealed FROM question_batches WHERE id = $1`, [batchId]);
  const token = new ShareTokenSealer(t.config.jwtSecret).open(rows[0].sealed);
  if (!token) throw new Error('cannot unseal');
  return token;
}

export const tokenOfUrl = (shareUrl: string) => shareUrl.split('/q/')[1];
