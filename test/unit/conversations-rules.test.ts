import { describe, expect, it } from 'vitest';
import { MIN_SCORE, scoreArticle, words } from '../../functions/conversations/answerer';
import { defaultRoutingReason, transitionEvent } from '../../functions/conversations/data';
import { normalizePhone } from '../../functions/conversations/inbound';
import { CONVERSATION_STATUSES } from '../../functions/conversations/schemas';

describe('conversation status rule table', () => {
  const open = new Set(['open', 'waiting']);
  for (const from of CONVERSATION_STATUSES)
    for (const to of CONVERSATION_STATUSES) {
      const expected =
        open.has(from) && !open.has(to)
          ? 'conversation.resolved'
          : !open.has(from) && open.has(to)
            ? 'conversation.reopened'
            : null;
      it(`${from} -> ${to}: ${expected ?? 'no event'}`, () => {
        expect(transitionEvent(from, to)).toBe(expected);
      });
    }
});

describe('default routing reason', () => {
  it('first assignment vs reassignment', () => {
    expect(defaultRoutingReason({ assignee_user_id: null, assignee_team_id: null })).toBe(
      'manual_assignment',
    );
    expect(defaultRoutingReason({ assignee_user_id: 'u', assignee_team_id: null })).toBe(
      'manual_reassignment',
    );
    expect(defaultRoutingReason({ assignee_user_id: null, assignee_team_id: 't' })).toBe(
      'manual_reassignment',
    );
  });
});

describe('KB answerer scoring', () => {
  it('drops short words and stopwords, lower-cases', () => {
    expect([...words('How do I RESET my password?')].sort()).toEqual(['password', 'reset']);
  });
  it('title words count 2, body words 1', () => {
    const q = words('reset password email');
    expect(scoreArticle(q, { title: 'Reset password', body: 'a link arrives by email' })).toBe(5);
    expect(scoreArticle(q, { title: 'Billing', body: 'nothing relevant' })).toBe(0);
    expect(scoreArticle(words('email'), { title: 'x', body: 'email' })).toBeLessThan(MIN_SCORE);
  });
});

describe('phone normalisation', () => {
  it.each([
    ['+1 (555) 010-2030', '+15550102030'],
    ['+15550102030', '+15550102030'],
    ['0049 30 1234567', '0049301234567'],
  ])('%s -> %s', (input, expected) => {
    expect(normalizePhone(input)).toBe(expected);
  });
});
