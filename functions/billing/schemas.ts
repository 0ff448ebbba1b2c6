import * as z from 'zod';
import { smtpLimits } from '../../shared/http/email';
import { pageQuery } from '../../shared/http/pagination';

export const TENANT_PLANS = ['free', 'starter', 'pro', 'enterprise'] as const;

export const ChangePlanBody = z.strictObject({ plan: z.enum(TENANT_PLANS) });

export const INVOICES_PAGE = { defaultLimit: 12, maxLimit: 100 } as const;
export const InvoicesQuery = pageQuery(INVOICES_PAGE);
export const InvoiceParam = z.object({
  invoice_id: z.string().min(1).max(64).describe('The invoice id (`inv_…`)'),
});

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

const CardNumber = z
  .string()
  .meta({
    description: '12-19 digits (Luhn-checked); spaces and dashes between them are ignored',
    pattern: '^(?:[0-9][ -]*){11,18}[0-9]$',
  })
  .transform((s) => s.replace(/[\s-]/g, ''))
  .pipe(
    z
      .string()
      .regex(/^\d{12,19}$/, 'card number must be 12-19 digits')
      .refine(luhnValid, 'card number is not valid'),
  );

export const PaymentMethodInput = z
  .strictObject({
    card_number: CardNumber,
    exp_month: z.number().int().min(1).max(12),
    exp_year: z.number().int().min(2000).max(2100),
    /** accepted for form compatibility; never stored */
    cvc: z
      .string()
      .regex(/^\d{3,4}$/, 'cvc must be 3 or 4 digits')
      .optional(),
  })
  .refine(
    (p) => {
      const now = new Date();
      return (
        p.exp_year > now.getUTCFullYear() ||
        (p.exp_year === now.getUTCFullYear() && p.exp_month >= now.getUTCMonth() + 1)
      );
    },
    { message: 'card has expired', path: ['exp_month'] },
  );

export const BillingAddress = z.strictObject({
  line1: z.string().min(1).max(200),
  line2: z.string().max(200).nullish(),
  city: z.string().min(1).max(100),
  state: z.string().max(100).nullish(),
  postal_code: z.string().min(1).max(20),
  country: z.string().regex(/^[A-Z]{2}$/, 'country is an ISO 3166-1 alpha-2 code'),
});

/** PUT replaces the payment settings; PATCH changes only the fields given (null clears one). */
export const PaymentSettingsBody = z.strictObject({
  billing_email: z
    .string()
    .email()
    .max(320)
    .refine(...smtpLimits)
    .nullish(),
  payment_method: PaymentMethodInput.nullish(),
  billing_address: BillingAddress.nullish(),
  tax_id: z.string().min(1).max(50).nullish(),
});

const Cents = z.number().int();
export const PlanResponse = z.object({
  plan: z.enum(TENANT_PLANS),
  name: z.string(),
  price_cents: Cents,
  currency: z.literal('usd'),
  interval: z.literal('month'),
  quotas: z.record(z.string(), z.number()),
  overage_cents: z.record(z.string(), z.number()),
  rate_limits: z.record(z.string(), z.object({ per_minute: z.number(), per_10_seconds: z.number() })),
  current_period: z.object({ period: z.string(), start: z.string(), end: z.string() }),
});

export const InvoiceLine = z.object({
  description: z.string(),
  metric: z.string().nullable(),
  quantity: z.number(),
  included: z.number(),
  billable: z.number(),
  unit_amount_cents: z.number(),
  amount_cents: Cents,
});
export const Invoice = z.object({
  id: z.string(),
  period: z.string(),
  period_start: z.string(),
  period_end: z.string(),
  status: z.enum(['upcoming', 'issued']),
  plan: z.string(),
  currency: z.literal('usd'),
  line_items: z.array(InvoiceLine),
  subtotal_cents: Cents,
  total_cents: Cents,
});

export const PaymentSettingsResponse = z.object({
  billing_email: z.string().nullable(),
  payment_method: z
    .object({
      type: z.literal('card'),
      brand: z.string(),
      last4: z.string(),
      exp_month: z.number(),
      exp_year: z.number(),
    })
    .nullable(),
  billing_address: z.record(z.string(), z.string().nullable()).nullable(),
  tax_id: z.string().nullable(),
  updated_at: z.string().nullable(),
});
