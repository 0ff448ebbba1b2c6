import { describe, expect, it } from 'vitest';
import { newRequestId } from '../../shared/ids';
import { createConsoleLogger, errorField } from '../../shared/log/logger';
import { batchedLines, createNodeLogger } from '../../shared/log/logger.node.js';
import { writeAccessLine } from '../../shared/runtime/access-log';

// Workers' logger writes the same JSON lines as pino on Node: the same level numbers and fields,
// so one query reads the logs of both runtimes.
describe('loggers', () => {
  it('the console logger writes one JSON line per call at or above its level', () => {
    const lines: string[] = [];
    const log = createConsoleLogger('warn', (line) => lines.push(line));
    log.info({ a: 1 }, 'dropped');
    log.warn({ a: 2 }, 'kept');
    log.error({ a: 3 }, 'kept too');
    expect(lines.map((l) => JSON.parse(l))).toMatchObject([
      { level: 40, a: 2, msg: 'kept' },
      { level: 50, a: 3, msg: 'kept too' },
    ]);
    expect(log.isLevelEnabled('info')).toBe(false);
    expect(log.isLevelEnabled('error')).toBe(true);
  });

  it("Node's stdout lines reach the writer in batches: when the next would not fit, else within 0.1 s, all on flush", async () => {
    const chunks: string[] = [];
    let flushedSync = 0;
    const lines = batchedLines({
      write: (chunk) => chunks.push(chunk.toString('utf8')),
      flushSync: () => flushedSync++,
    });
    lines.write('a\n');
    lines.write('b\n');
    await new Promise((r) => setImmediate(r));
    expect(chunks).toEqual([]); // small lines wait for company
    await new Promise((r) => setTimeout(r, 150));
    expect(chunks).toEqual(['a\nb\n']); // ... but not longer than 0.1 s
    lines.write('c\n');
    const big = `${'x'.repeat(16_000)}\n`;
    lines.write(big);
    expect(chunks).toEqual(['a\nb\n', 'c\n', big]); // a line bigger than a batch goes at once, after the pending ones
    lines.write('d\n');
    lines.flushSync(); // shutdown: the pending line is handed over, then written synchronously
    expect(chunks).toEqual(['a\nb\n', 'c\n', big, 'd\n']);
    expect(flushedSync).toBe(1);
  });

  it('batches keep every byte of every line, whatever its characters, across batch boundaries', () => {
    const chunks: Buffer[] = [];
    const lines = batchedLines({ write: (chunk) => chunks.push(chunk), flushSync: () => {} });
    // lines of 1-, 2-, 3- and 4-byte characters (a lone surrogate becomes U+FFFD, as Buffer.from does)
    const written = Array.from({ length: 5_000 }, (_, i) => `${i} é € 😀 \ud800 ${'y'.repeat(i % 97)}\n`);
    for (const line of written) lines.write(line);
    lines.flushSync();
    expect(chunks.length).toBeGreaterThan(1); // more than one batch, so lines met the boundary
    for (const chunk of chunks) expect(chunk.length).toBeLessThanOrEqual(16_000);
    expect(Buffer.concat(chunks).equals(Buffer.from(written.join('')))).toBe(true);
  });

  it('silent logs nothing', () => {
    const lines: string[] = [];
    const log = createConsoleLogger('silent', (line) => lines.push(line));
    log.fatal({}, 'nothing');
    expect(lines).toEqual([]);
    expect(log.isLevelEnabled('fatal')).toBe(false);
  });

  it('pino and the console logger agree on the fields of a line', () => {
    const node: string[] = [];
    const edge: string[] = [];
    createNodeLogger({ level: 'info', destination: { write: (l) => node.push(l) } }).info(
      { x: 'y' },
      'hello',
    );
    createConsoleLogger('info', (l) => edge.push(l)).info({ x: 'y' }, 'hello');
    const [n, e] = [JSON.parse(node[0]!), JSON.parse(edge[0]!)];
    expect(Object.keys(n).sort()).toEqual(Object.keys(e).sort());
    expect({ ...n, time: 0 }).toEqual({ ...e, time: 0 });
  });

  it('a line of preformatted members (the access log) is the line pino writes for the same fields', () => {
    const pinoLines: string[] = [];
    const members: string[] = [];
    const edge: string[] = [];
    const fields = { method: 'GET', route: null, status: 403, request_id: 'rid_"quoted"\u2028' };
    const written = `"method":"GET","route":null,"status":403,"request_id":${JSON.stringify(fields.request_id)}`;
    createNodeLogger({ level: 'info', destination: { write: (l) => pinoLines.push(l) } }).info(
      fields,
      'request',
    );
    createNodeLogger({ level: 'info', destination: { write: (l) => members.push(l) } }).infoMembers(
      written,
      'request',
    );
    createConsoleLogger('info', (l) => edge.push(l)).infoMembers(written, 'request');
    expect(members[0]!.endsWith('\n')).toBe(true);
    const [p, m, e] = [pinoLines[0]!, members[0]!, edge[0]!].map((l) => ({ ...JSON.parse(l), time: 0 }));
    expect(m).toEqual(p);
    expect(e).toEqual(p);
    // below the level, nothing
    const quiet: string[] = [];
    createNodeLogger({ level: 'warn', destination: { write: (l) => quiet.push(l) } }).infoMembers(
      written,
      'x',
    );
    createConsoleLogger('warn', (l) => quiet.push(l)).infoMembers(written, 'x');
    expect(quiet).toEqual([]);
  });

  it('an access line is valid JSON whatever a caller sent as its request id or a token held as its tenant', () => {
    const lines: string[] = [];
    const log = createNodeLogger({ level: 'info', destination: { write: (l) => lines.push(l) } });
    const awkward = ['rid_plain', 'say "hi"', 'back\\slash', 'tab\there', 'ünï\u2028cødé', '', '{"a":1}'];
    for (const value of awkward) {
      writeAccessLine(log, {
        method: 'PATCH',
        route: '/api/v1/tickets/:id',
        status: 200,
        startedAt: performance.now(),
        auth: { kind: 'dashboard', tenantId: value, userId: 'usr_1', role: 'agent' },
        requestId: value,
      });
    }
    writeAccessLine(log, {
      method: 'GET',
      route: null,
      status: 401,
      startedAt: 0,
      auth: undefined,
      requestId: undefined,
    });
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed.slice(0, -1).map((l) => [l.request_id, l.tenant_id])).toEqual(awkward.map((v) => [v, v]));
    expect(parsed[0]).toMatchObject({
      level: 30,
      method: 'PATCH',
      route: '/api/v1/tickets/:id',
      status: 200,
      credential: 'dashboard',
      msg: 'request',
    });
    expect(parsed.at(-1)).toMatchObject({ route: null, tenant_id: null, credential: null, request_id: null });
  });

  it('an error is logged as its stack, a non-error as its string', () => {
    expect(errorField(new RangeError('too far'))).toMatch(/^RangeError: too far\n/);
    expect(errorField('plain')).toBe('plain');
  });

  it('request ids of one process never repeat and share its random tag', () => {
    const ids = Array.from({ length: 10_000 }, newRequestId);
    expect(new Set(ids).size).toBe(ids.length);
    const tag = ids[0]!.slice(0, 'rid_'.length + 12);
    expect(tag).toMatch(/^rid_[0-9A-Za-z]{12}$/);
    expect(ids.every((id) => id.startsWith(tag))).toBe(true);
  });
});
