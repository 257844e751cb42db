import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { toYaml } from '../../../src/lib/yaml.js';
import { specBody } from '../../../src/resources/discovery/specs.js';

/** What a YAML 1.2 reader and a YAML 1.1 reader (booleans yes/no/on/off, sexagesimal numbers, ...) make of the text. */
function readBack(text: string): { v12: unknown; v11: unknown } {
  return { v12: parse(text, { uniqueKeys: true, strict: true }), v11: parse(text, { version: '1.1', uniqueKeys: true, strict: true }) };
}

function expectRoundTrip(value: unknown): string {
  const text = toYaml(value);
  const { v12, v11 } = readBack(text);
  expect(v12, text).toEqual(value);
  expect(v11, text).toEqual(value);
  return text;
}

const TRICKY_STRINGS = [
  '', ' ', 'plain', 'with space', ' leading', 'trailing ', 'a: b', 'a:b', 'a #b', '#comment', '- dash', '-', '?', ':', '|', '>', '!tag', '&anchor', '*alias', '%directive',
  '@at', '`tick`', '{}', '[]', '{a: 1}', '[1, 2]', ',', 'key,comma', '"quoted"', "'single'", 'back\\slash', 'tab\there', 'new\nline', 'cr\rlf\r\n', '\u0000nul', '\u0007bell', '\u001b[0m',
  '\u007fdel', '\u0085nel', '\u0080c1', '\u009fc1', 'line\u2028sep', 'para\u2029sep', '\ufeffbom', '\ufffe', '\uffff', 'lone \ud800 high', 'lone \udc00 low', 'emoji 😀', 'ünïcödé', '中文', 'zero\u200bwidth',
  'true', 'True', 'TRUE', 'false', 'null', 'Null', 'NULL', '~', 'yes', 'Yes', 'no', 'NO', 'on', 'On', 'off', 'OFF', 'y', 'Y', 'n', 'N', '<<', '=',
  '0', '1', '-1', '+1', '1.5', '.5', '1e3', '1E3', '0x1F', '0o17', '017', '0b101', '1_000', '1:20', '1:20:30', '.inf', '-.inf', '.Inf', '.nan', '.NaN', 'inf', 'nan', 'Infinity', 'NaN', 'e3', 'E3', 'e-3', 'e_3', 'e3x',
  '2001-12-14', '2001-12-14t21:59:43.10-05:00', '2001-12-14 21:59:43.10 -5', '0.26.45', 'v1.6.2', '/edge/client/v1', '/identities/{id}', '$ref', '#/definitions/x', 'a/b.c-d_e', '_under', 'x'.repeat(300),
  '---', '...', '--- x', '... x', 'a\n---\nb', '\n', '\t', '  \n  ',
];

describe('toYaml', () => {
  it('writes every tricky string so that YAML 1.2 and 1.1 readers read it back unchanged, as value and as key', () => {
    for (const s of TRICKY_STRINGS) {
      expectRoundTrip(s);
      expectRoundTrip({ [s]: s });
      expectRoundTrip([s, { k: s }]);
    }
  });

  it('quotes what could be read as something else and leaves simple words plain', () => {
    expect(toYaml({ type: 'string', name: 'listIdentities', in: 'path' })).toBe('type: string\nname: listIdentities\nin: path\n');
    expect(toYaml({ a: 'true', b: 'yes', c: '1', d: '0.26.45', e: 'a b', f: '' })).toBe('a: "true"\nb: "yes"\nc: "1"\nd: "0.26.45"\ne: "a b"\nf: ""\n');
    expect(toYaml({ '200': { description: '' }, '/identities': {} })).toBe('"200":\n  description: ""\n"/identities": {}\n');
    expect(toYaml('a\u0085b\u2028c\ufeffd"e\\f\ng')).toBe('"a\\u0085b\\u2028c\\uFEFFd\\"e\\\\f\\ng"\n');
  });

  it('writes numbers, booleans, null and empty containers as YAML scalars of the same value', () => {
    for (const v of [0, 1, -1, 1.5, -0.25, 1e21, 1e-7, 2 ** 53, -(2 ** 53), Number.MAX_VALUE, Number.MIN_VALUE, true, false, null, {}, [], { a: {}, b: [], c: null }, [[], {}, null]]) expectRoundTrip(v);
    expect(toYaml({ a: 1, b: true, c: null, d: [], e: {} })).toBe('a: 1\nb: true\nc: null\nd: []\ne: {}\n');
  });

  it('nests objects and arrays as blocks, arrays of objects and of arrays in the compact form', () => {
    const value = { a: [1, 'x', { b: [{ c: 1, d: [[1, 2], [], [{ e: 'f' }]] }], g: { h: { i: [] } } }, [3, [4, [5]]]], j: { k: [{}] } };
    const text = expectRoundTrip(value);
    expect(text).toBe(
      [
        'a:',
        '  - 1',
        '  - x',
        '  - b:',
        '      - c: 1',
        '        d:',
        '          - - 1',
        '            - 2',
        '          - []',
        '          - - e: f',
        '    g:',
        '      h:',
        '        i: []',
        '  - - 3',
        '    - - 4',
        '      - - 5',
        'j:',
        '  k:',
        '    - {}',
        '',
      ].join('\n'),
    );
  });

  it('drops undefined object members as JSON does', () => {
    expect(toYaml({ a: undefined, b: 1 })).toBe('b: 1\n');
    expect(toYaml({ a: undefined })).toBe('{}\n');
  });

  it('writes both served API descriptions as YAML that reads back as their JSON', () => {
    for (const id of ['edge-client', 'edge-management'] as const) {
      const json = JSON.parse(specBody(id, 'json'));
      const { v12, v11 } = readBack(specBody(id, 'yaml'));
      expect(v12).toEqual(json);
      expect(v11).toEqual(json);
    }
  });
});
