import { eq } from 'drizzle-orm';
import type { Db } from '../../src/db/client.js';
import { authenticators, enrollments, pkiMaterial } from '../../src/db/schema/index.js';

/**
 * Store-level reads for the enrollment suites (each runtime passes its own database handle). They never
 * assert.
 */
export interface EnrollmentStore {
  serverCertPem(): Promise<string>;
  /** Every stored column of an identity's enrollments, joined as text (to prove no token is stored in clear). */
  enrollmentRowsText(identityId: string): Promise<string>;
  authenticatorsOf(identityId: string): Promise<(typeof authenticators.$inferSelect)[]>;
}

export function enrollmentStore(db: Db): EnrollmentStore {
  return {
    async serverCertPem() {
      const rows = await db.select({ pem: pkiMaterial.certPem }).from(pkiMaterial).where(eq(pkiMaterial.name, 'server'));
      return rows[0]?.pem ?? '';
    },
    async enrollmentRowsText(identityId) {
      const rows = await db.select().from(enrollments).where(eq(enrollments.identityId, identityId));
      return JSON.stringify(rows);
    },
    authenticatorsOf: (identityId) => db.select().from(authenticators).where(eq(authenticators.identityId, identityId)),
  };
}
