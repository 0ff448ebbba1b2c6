import type { KeyedCase } from './types';

export const conversationCases: KeyedCase[] = [];
