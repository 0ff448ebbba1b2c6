import type { Db } from '../shared/db/schema';

/** The demo tenant `npm start` prints, so a newcomer can mint a token right away. Idempotent. */
export const DEMO_TENANT = {
  id: 'ten_demo',
  name: 'Demo Support Co',
  plan: 'pro',
  environment: 'sandbox',
} as const;

export async function seedDemoTenant(db: Db) {
  await db
    .insertInto('tenants')
    .values({ ...DEMO_TENANT })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return DEMO_TENANT;
}
