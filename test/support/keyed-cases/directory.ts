import type { CaseContext, KeyedCase } from './types';

/** A pending invitee of the case's tenant, made through the API as an admin would: their id. */
async function invitee({ h, t }: CaseContext, email: string): Promise<string> {
  const res = await h.request('POST', '/api/v1/tenant/users', {
    bearer: t.adminToken,
    body: { email, role: 'agent' },
  });
  if (res.status !== 201) throw new Error(`invite failed: ${res.status} ${res.text}`);
  return res.body.id as string;
}

export const directoryCases: KeyedCase[] = [
  {
    operationId: 'createTenantUser',
    prepare: async ({ t }) => ({
      method: 'POST',
      path: '/api/v1/tenant/users',
      body: { email: 'keyed.colleague@acme.example', name: 'Keyed', role: 'agent' },
      bearer: await t.token('tenant_admin'),
    }),
    // the colleague and their invite link
    effects: async ({ h, t }) =>
      Number(
        (
          await h.db
            .selectFrom('tenant_users as u')
            .leftJoin('tenant_user_tokens as k', 'k.user_id', 'u.id')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('u.tenant_id', '=', t.id)
            .executeTakeFirstOrThrow()
        ).n,
      ),
  },
  {
    operationId: 'updateTenantUser',
    prepare: async (ctx) => ({
      method: 'PATCH',
      path: `/api/v1/tenant/users/${await invitee(ctx, 'keyed.rename@acme.example')}`,
      body: { name: 'Renamed once' },
      bearer: await ctx.t.token('tenant_admin'),
    }),
    // a second run changes nothing but updated_at (and records no audit row): that moves
    effects: async ({ h, t }, first) =>
      new Date(
        (
          await h.db
            .selectFrom('tenant_users')
            .select('updated_at')
            .where('tenant_id', '=', t.id)
            .where('id', '=', first.body.id)
            .executeTakeFirstOrThrow()
        ).updated_at,
      ).getTime(),
  },
  {
    operationId: 'resendInvitation',
    prepare: async (ctx) => ({
      method: 'POST',
      path: `/api/v1/tenant/invitations/${await invitee(ctx, 'keyed.resend@acme.example')}/resend`,
      bearer: await ctx.t.token('tenant_admin'),
    }),
    // every resend issues a link and records an audit row
    effects: async ({ h, t }, first) => {
      const links = await h.db
        .selectFrom('tenant_user_tokens')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', first.body.id)
        .executeTakeFirstOrThrow();
      const audits = await h.db
        .selectFrom('audit_log')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('tenant_id', '=', t.id)
        .where('action', '=', 'user.invited')
        .executeTakeFirstOrThrow();
      return Number(links.n) * 1000 + Number(audits.n);
    },
  },
  {
    operationId: 'createTenantExport',
    prepare: async ({ key }) => ({
      method: 'POST',
      path: '/api/v1/tenant/exports',
      body: { resource: 'tickets', format: 'json' },
      apiKey: await key(['exports:write', 'config:write']),
    }),
    effects: async ({ h, t }) =>
      Number(
        (
          await h.db
            .selectFrom('export_jobs')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('tenant_id', '=', t.id)
            .executeTakeFirstOrThrow()
        ).n,
      ),
  },
];
