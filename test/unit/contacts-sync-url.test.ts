import { describe, expect, it } from 'vitest';
import { refuseBaseUrl, refuseBaseUrlResolved } from '../../functions/contacts/sync/providers';

describe('refuseBaseUrl (contact-sync SSRF guard)', () => {
  it.each([
    'https://helpdesk.example.com',
    'https://acme.helpdesk-a.example/api/v2',
    'https://93.184.216.34',
    'https://[2606:4700::1]',
  ])('accepts %s', (url) => {
    expect(refuseBaseUrl(url, [])).toBeNull();
  });

  it.each([
    ['http://helpdesk.example.com', 'base_url must use https'],
    ['ftp://helpdesk.example.com', 'base_url must use https'],
    ['https://127.0.0.1', 'base_url must be a public host'],
    ['https://2130706433', 'base_url must be a public host'],
    ['https://0x7f000001', 'base_url must be a public host'],
    ['https://10.1.2.3', 'base_url must be a public host'],
    ['https://169.254.169.254/latest', 'base_url must be a public host'],
    ['https://100.64.0.1', 'base_url must be a public host'],
    ['https://0.0.0.0', 'base_url must be a public host'],
    ['https://[::1]', 'base_url must be a public host'],
    ['https://[::ffff:127.0.0.1]', 'base_url must be a public host'],
    ['https://[fd00::1]', 'base_url must be a public host'],
    ['https://localhost', 'base_url must be a public host'],
    ['https://metadata.google.internal', 'base_url must be a public host'],
    ['https://u:p@helpdesk.example.com', 'base_url must not contain credentials'],
    ['https://helpdesk.example.com/?x=1', 'base_url must not contain a query or fragment'],
    ['not a url', 'base_url is not a valid URL'],
  ])('refuses %s', (url, reason) => {
    expect(refuseBaseUrl(url, [])).toBe(reason);
  });

  it('allow-listed hosts may use http and private addresses', () => {
    expect(refuseBaseUrl('http://127.0.0.1:8080/a', ['127.0.0.1'])).toBeNull();
    expect(refuseBaseUrl('http://127.0.0.2:8080/a', ['127.0.0.1'])).toBe('base_url must use https');
  });
});

describe('refuseBaseUrlResolved: a host name is resolved and every address must be public', () => {
  const dns: Record<string, string[]> = {
    'helpdesk.example.com': ['93.184.216.34', '2606:4700::1'],
    'metadata.example.com': ['169.254.169.254'],
    'split.example.com': ['93.184.216.34', '10.0.0.5'],
    'mapped.example.com': ['::ffff:127.0.0.1'],
  };
  const asked: string[] = [];
  const resolve = async (host: string) => {
    asked.push(host);
    return dns[host] ?? [];
  };

  it.each([
    ['https://helpdesk.example.com/api', null],
    ['https://metadata.example.com/api', 'base_url must be a public host'],
    ['https://split.example.com', 'base_url must be a public host'],
    ['https://mapped.example.com', 'base_url must be a public host'],
    ['https://nowhere.example.com', 'base_url host does not resolve'],
    ['https://localhost./api', 'base_url host does not resolve'],
    ['http://helpdesk.example.com', 'base_url must use https'],
  ])('%s -> %s', async (url, expected) => {
    expect(await refuseBaseUrlResolved(url, [], resolve)).toBe(expected);
  });

  it('neither resolves an IP literal nor an allow-listed host', async () => {
    asked.length = 0;
    expect(await refuseBaseUrlResolved('https://93.184.216.34', [], resolve)).toBeNull();
    expect(await refuseBaseUrlResolved('http://fake.local:8080/a', ['fake.local'], resolve)).toBeNull();
    expect(asked).toEqual([]);
  });

  it('a resolver failure refuses (never fails open)', async () => {
    const failing = async () => {
      throw new Error('dns timeout');
    };
    expect(await refuseBaseUrlResolved('https://helpdesk.example.com', [], failing)).toBe(
      'base_url host does not resolve',
    );
  });
});
