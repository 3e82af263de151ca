import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { OAuthPayload, OAuthRecordsRepository } from './oauth-records.repository.js';

/** oidc-provider's storage interface, one instance per model, over OAuthRecordsRepository. */
export function oauthStorageAdapter(records: OAuthRecordsRepository): new (model: string) => Adapter {
  return class OAuthStorageAdapter implements Adapter {
    constructor(private readonly model: string) {}

    upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
      const expiresAt = typeof expiresIn === 'number' && expiresIn > 0 ? new Date(Date.now() + expiresIn * 1000) : null;
      return records.upsert(this.model, id, payload as OAuthPayload, expiresAt);
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return (await records.find(this.model, id)) as AdapterPayload | undefined;
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      return (await records.findByUid(this.model, uid)) as AdapterPayload | undefined;
    }

    async findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
      return (await records.findByUserCode(this.model, userCode)) as AdapterPayload | undefined;
    }

    consume(id: string): Promise<void> {
      return records.consume(this.model, id);
    }

    destroy(id: string): Promise<void> {
      return records.destroy(this.model, id);
    }

    revokeByGrantId(grantId: string): Promise<void> {
      return records.revokeByGrantId(this.model, grantId);
    }
  };
}
