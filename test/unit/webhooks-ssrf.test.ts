import { describe, expect, it } from 'vitest';
import {
  checkDestination,
  classifyAddress,
  isPublicAddress,
  WebhookUrlError,
} from '../../shared/webhooks/ssrf';

const noDns = async (): Promise<string[]> => {
  throw new Error('must not resolve an IP literal');
};

describe('webhook SSRF address classes', () => {
  it.each([
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'linkLocal'], // cloud metadata
    ['169.254.0.1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456:789a::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['::ffff:100.64.0.1', 'carrierGradeNat'],
    ['::127.0.0.1', 'loopback'], // IPv4-compatible (deprecated) form
    ['::7f00:1', 'loopback'], // the same, as WHATWG URL parsing writes it
    ['::10.0.0.1', 'private'],
    ['::169.254.169.254', 'linkLocal'],
    ['::100.64.0.1', 'carrierGradeNat'],
    ['::0.0.0.2', 'unspecified'],
    ['64:ff9b::a00:1', 'rfc6052'], // NAT64
    ['2002:7f00:1::', '6to4'],
    ['2001::1', 'teredo'],
  ])('refuses %s (%s)', (address, range) => {
    expect(classifyAddress(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '93.184.216.34',
    '1.1.1.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
    '::8.8.8.8', // IPv4-compatible form of a public address: classified by the IPv4 inside
  ])('accepts the public address %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('webhook destination check', () => {
  const opts = { resolve: noDns, allow: [] as string[] };

  it.each([
    'https://[::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:a9fe:a9fe]/latest/meta-data',
    'https://[fd00::1]/',
    'https://[fe80::1]/',
    'https://2130706433/', // decimal 127.0.0.1
    'https://0x7f000001/', // hex
    'https://0x7f.0.0.1/',
    'https://127.1/', // short form
    'https://0177.0.0.1/', // octal
    'https://169.254.169.254/latest/meta-data/',
    'https://100.64.1.1/',
    'https://0.0.0.0/',
    'https://10.1.2.3:8443/x',
    'https://[64:ff9b::7f00:1]/',
    'https://[::127.0.0.1]/h', // IPv4-compatible forms (ipaddr.js threw on these: a 500)
    'https://[::10.0.0.1]/h',
    'https://[::a9fe:a9fe]/latest/meta-data',
  ])('refuses the IP literal in %s without a lookup', async (url) => {
    expect(await checkDestination(url, opts)).toEqual({ ok: false, detail: WebhookUrlError.private });
  });

  it('refuses a host that resolves to any private address (one bad record is enough)', async () => {
    const resolve = async () => ['93.184.216.34', '10.0.0.5'];
    expect(await checkDestination('https://mixed.example/', { resolve, allow: [] })).toEqual({
      ok: false,
      detail: WebhookUrlError.private,
    });
  });

  it('refuses a host that resolves to loopback IPv6 or mapped forms', async () => {
    for (const addr of ['::1', '::ffff:127.0.0.1', 'fe80::1']) {
      const res = await checkDestination('https://rebind.example/', {
        resolve: async () => [addr],
        allow: [],
      });
      expect(res).toEqual({ ok: false, detail: WebhookUrlError.private });
    }
  });

  it('refuses a host that does not resolve', async () => {
    for (const resolve of [async () => [], noDns]) {
      expect(await checkDestination('https://nx.example/', { resolve, allow: [] })).toEqual({
        ok: false,
        detail: WebhookUrlError.unresolvable,
      });
    }
  });

  it('accepts a host with public addresses only and returns them for pinning', async () => {
    const res = await checkDestination('https://Hooks.Example.com./in', {
      resolve: async (h) => (h === 'hooks.example.com' ? ['93.184.216.34', '2606:2800:220:1::1'] : []),
      allow: [],
    });
    expect(res).toMatchObject({
      ok: true,
      host: 'hooks.example.com',
      addresses: ['93.184.216.34', '2606:2800:220:1::1'],
    });
  });

  it('accepts the IPv4-compatible literal of a public address without a lookup', async () => {
    expect(await checkDestination('https://[::8.8.8.8]/h', opts)).toMatchObject({
      ok: true,
      addresses: ['::808:808'],
    });
  });

  it('requires https, whatever the allow list says', async () => {
    for (const url of [
      'http://localhost/x',
      'ftp://example.com',
      'example.com',
      '//example.com',
      'httpss://x',
    ]) {
      expect(await checkDestination(url, { resolve: noDns, allow: ['localhost'] })).toEqual({
        ok: false,
        detail: WebhookUrlError.notHttps,
      });
    }
  });

  it('exempts only the allow-listed host names', async () => {
    expect(
      await checkDestination('https://localhost:8443/x', { resolve: noDns, allow: ['localhost'] }),
    ).toMatchObject({
      ok: true,
      addresses: [],
    });
    expect(await checkDestination('https://127.0.0.1/x', { resolve: noDns, allow: ['localhost'] })).toEqual({
      ok: false,
      detail: WebhookUrlError.private,
    });
  });
});
