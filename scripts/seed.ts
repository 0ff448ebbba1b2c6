import { hashAccountPassword } from '../shared/auth/password';
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

/** The demo tenant's admin, to sign in to the console right away (`DEMO_ADMIN_PASSWORD` overrides). */
export const DEMO_ADMIN = {
  id: 'tus_demo_admin',
  email: 'admin@demo.example',
  name: 'Demo Admin',
  devPassword: 'demo-admin-password',
} as const;

/** Idempotent; the password is set again at each start, so the printed one always works. */
export async function seedDemoAdmin(db: Db, password: string) {
  const password_hash = await hashAccountPassword(DEMO_ADMIN.email, password);
  await db
    .insertInto('tenant_users')
    .values({
      id: DEMO_ADMIN.id,
      tenant_id: DEMO_TENANT.id,
      email: DEMO_ADMIN.email,
      name: DEMO_ADMIN.name,
      role: 'tenant_admin',
      password_hash,
      updated_at: new Date(),
    })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({ password_hash, disabled_at: null, role: 'tenant_admin' }),
    )
    .execute();
  return { email: DEMO_ADMIN.email, password };
}
