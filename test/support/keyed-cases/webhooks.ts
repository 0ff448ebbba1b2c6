import type { KeyedCase } from './types';

export const webhookCases: KeyedCase[] = [];
