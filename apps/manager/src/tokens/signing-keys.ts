// The manager's ES256 signing keys, kept in the database (private half sealed) so that every replica
// signs with the same key and a restart does not invalidate tokens already handed out.
import { type Db, inTransaction, type SecretBox, takeManagerLock } from '@agentplane/db';
import { type CryptoKey, calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';

export const SIGNING_ALGORITHM = 'ES256';
// How long a replica trusts its cached view of the keys before looking for a rotation.
const CACHE_MS = 5 * 60_000;

export type SigningKey = { kid: string; privateKey: CryptoKey };
export type PublicJwk = JWK & { kid: string; alg: string; use: 'sig' };

export class SigningKeys {
  private cached: { key: SigningKey; at: number } | undefined;

  constructor(
    private readonly db: Db,
    private readonly box: SecretBox,
    private readonly now: () => number = Date.now,
  ) {}

  /** The newest key that is not retired, made on first use. */
  async current(): Promise<SigningKey> {
    if (this.cached && this.now() - this.cached.at < CACHE_MS) return this.cached.key;
    const row = (await this.newest()) ?? (await this.create());
    const key = {
      kid: row.kid,
      privateKey: (await importJWK(JSON.parse(this.box.open(row.privateJwk)), SIGNING_ALGORITHM)) as CryptoKey,
    };
    this.cached = { key, at: this.now() };
    return key;
  }

  /** Every key that is not retired: what verifiers need, whichever replica signed. */
  async publicJwks(): Promise<PublicJwk[]> {
    await this.current();
    const rows = await this.db.signingKey.findMany({ where: { retiredAt: null }, orderBy: { createdAt: 'desc' } });
    return rows.map((row) => row.publicJwk as PublicJwk);
  }

  private newest() {
    return this.db.signingKey.findFirst({ where: { retiredAt: null }, orderBy: { createdAt: 'desc' } });
  }

  private async create() {
    return inTransaction(this.db, async (tx) => {
      // Serialises the first start of several replicas, so that they agree on one key.
      await takeManagerLock(tx, 'signing-key-creation');
      const existing = await tx.signingKey.findFirst({ where: { retiredAt: null }, orderBy: { createdAt: 'desc' } });
      if (existing) return existing;
      const { publicKey, privateKey } = await generateKeyPair(SIGNING_ALGORITHM, { extractable: true });
      const publicJwk = await exportJWK(publicKey);
      const kid = await calculateJwkThumbprint(publicJwk);
      return tx.signingKey.create({
        data: {
          kid,
          algorithm: SIGNING_ALGORITHM,
          publicJwk: { ...publicJwk, kid, alg: SIGNING_ALGORITHM, use: 'sig' },
          privateJwk: this.box.seal(JSON.stringify(await exportJWK(privateKey))),
        },
      });
    });
  }
}
