// Shared fast-check generators for the fuzz tests: hostile strings and numbers,
// JSON with dangerous keys, raw JSON texts (invalid literals, deep nesting, huge
// values), wrong content types, and damaged binary files.
import fc from 'fast-check'

/** Keys that reach Object.prototype when code copies them carelessly. */
export const DANGEROUS_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
] as const

/** The property name every prototype-pollution payload tries to plant. */
export const POLLUTION_MARK = 'fuzzPolluted'

/** Strings that trip naive code: NUL, lone surrogates, bidi overrides, combining marks, odd spellings. */
export const NASTY_STRINGS: readonly string[] = [
  '',
  ' ',
  '\t\n',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\ud83d',
  '\ude00y',
  '\u202eevil.stl',
  '\u200f\u05e9\u05dc\u05d5\u05dd',
  'e\u0301\u0301\u0301\u0301\u0301',
  '\u200d\u200d',
  '\ufeff',
  '\u2028\u2029',
  '🙂👩‍👩‍👧',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '0x1F',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  'prototype',
  '../../../etc/passwd',
  '%00',
  '%E0%A4%A',
  '<script>alert(1)</script>',
  "'; DROP TABLE demands; --",
  'ffffffffffffffffffffffff',
  'QUOTE',
  'quote_sent',
  '3D_PRINTING',
  'http://127.0.0.1:9/x',
  'x'.repeat(600),
]

/** One UTF-16 surrogate half on its own (not well-formed Unicode). */
export const loneSurrogate = fc.integer({min: 0xd800, max: 0xdfff}).map((c) => String.fromCharCode(c))

const oddChar = fc.constantFrom(
  '\u0000',
  '\u0007',
  '\u202e',
  '\u200f',
  '\u0301',
  '\u200d',
  '\ufeff',
  '\ud83d',
  '\ude00',
  '\u2028',
  'a',
  '"',
  '\\',
  '/',
  '.',
  '%',
)

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.string({unit: 'binary', maxLength: 16}),
  fc.string({unit: oddChar, maxLength: 12}),
  fc.tuple(fc.string({maxLength: 4}), loneSurrogate, fc.string({maxLength: 4})).map(([a, b, c]) => a + b + c),
)

export const oddNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(-0, 0, -1, 0.5, 1e308, -1e308, 5e-324, 2 ** 31, 2 ** 32, 2 ** 53 + 2, 1e21, -(2 ** 63)),
  fc.double({noNaN: true, noDefaultInfinity: true}),
  fc.integer(),
)

/** A token written into the JSON text as is: NaN, Infinity, -0, undefined... (mostly invalid JSON). */
export class Raw {
  constructor(readonly text: string) {}
}

export const rawLiteral: fc.Arbitrary<Raw> = fc
  .constantFrom('NaN', 'Infinity', '-Infinity', '-0', '1e999', '-1e999', 'undefined', '0x10', '01', '.5', "'x'", 'None')
  .map((t) => new Raw(t))

/** JSON text of a value that may hold Raw tokens and own `__proto__` keys. */
export function jsonText(value: unknown): string {
  const raws: string[] = []
  const text = JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Raw) {
      raws.push(v.text)
      return `@@raw${raws.length - 1}@@`
    }
    return v
  })
  if (text === undefined) return 'null'
  return raws.length === 0 ? text : text.replace(/"@@raw(\d+)@@"/g, (_m, i: string) => raws[Number(i)]!)
}

const keyArb: fc.Arbitrary<string> = fc.oneof(
  {weight: 4, arbitrary: fc.string({maxLength: 8})},
  {weight: 1, arbitrary: fc.constantFrom(...DANGEROUS_KEYS)},
  {weight: 1, arbitrary: nastyString},
)

/** An object with own properties in this order; `__proto__` becomes an own key, not the prototype. */
const objectOf = (entries: [string, unknown][]): Record<string, unknown> => Object.fromEntries(entries)

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  oddNumber,
  fc.boolean(),
  fc.constant(null),
  fc.string({maxLength: 10}),
)

/** Arbitrary JSON trees whose keys include dangerous and hostile ones. */
export const jsonTree: fc.Arbitrary<unknown> = fc.letrec<{tree: unknown; array: unknown[]; object: unknown}>((tie) => ({
  tree: fc.oneof({depthSize: 'small', withCrossShrink: true}, leaf, tie('array'), tie('object')),
  array: fc.array(tie('tree'), {maxLength: 5}),
  object: fc.array(fc.tuple(keyArb, tie('tree')), {maxLength: 5}).map(objectOf),
})).tree

/** A value of the wrong type (or an odd value of the right one) for any field. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  oddNumber,
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom({}, []),
  fc.array(fc.oneof(nastyString, oddNumber), {maxLength: 4}),
  fc.array(fc.tuple(keyArb, leaf), {maxLength: 3}).map(objectOf),
  rawLiteral,
)

/** Payloads that try to plant POLLUTION_MARK on Object.prototype, as JSON text. */
export const protoPayloads = (mark = POLLUTION_MARK): string[] => [
  `{"__proto__": {"${mark}": "yes"}}`,
  `[{"__proto__": {"${mark}": "yes"}, "technique": "3D_PRINTING", "material": "PLA"}]`,
  `{"constructor": {"prototype": {"${mark}": "yes"}}}`,
  `[{"constructor": {"prototype": {"${mark}": "yes"}}}]`,
  `{"a": {"__proto__": {"${mark}": "yes"}}}`,
  `{"prototype": {"${mark}": "yes"}, "toString": "x", "valueOf": 1, "hasOwnProperty": null}`,
  `{"__proto__": null}`,
  `{"__proto__": []}`,
  `{"\\u005f\\u005fproto\\u005f\\u005f": {"${mark}": "yes"}}`,
]

/** `[[[...]]]` or `{"a":{"a":...}}` nested `depth` levels, optionally inside a field of an object. */
export function deepText(depth: number, shape: 'array' | 'object' | 'field'): string {
  if (shape === 'array') return '['.repeat(depth) + ']'.repeat(depth)
  const inner = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
  return shape === 'object' ? inner : `[{"technique": "3D_PRINTING", "material": "PLA", "color": ${inner}}]`
}

export const deepBody: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(64, 500, 3000, 20_000, 200_000),
    fc.constantFrom('array', 'object', 'field') as fc.Arbitrary<'array' | 'object' | 'field'>,
  )
  .map(([depth, shape]) => deepText(depth, shape))

/** Texts that are not JSON at all, or almost JSON. */
export const MALFORMED_JSON: readonly string[] = [
  '',
  ' ',
  '{',
  '[',
  '[{"technique": ',
  '{"a":1,}',
  '[1,]',
  "{'a': 1}",
  '{"a": 1}{"b": 2}',
  '{"a": 1} x',
  '// comment\n{}',
  '{"a": NaN}',
  '[Infinity]',
  '{"quantity": -Infinity}',
  '{"a": undefined}',
  '{"a": "\\x41"}',
  '{"a": "\\u12"}',
  '{"a": "line\nbreak"}',
  '\ufeff{"a": 1}',
  '"\\ud800"',
  '{"a":1e99999}',
  '<xml/>',
  'null',
  'true',
  '0',
  '-0',
  '"text"',
]

export const malformedJson: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...MALFORMED_JSON),
  fc.string({maxLength: 30}),
  fc.string({unit: fc.constantFrom('{', '}', '[', ']', '"', ':', ',', '1', 'a', ' ', '\\'), maxLength: 40}),
)

/** Content types the JSON routes must refuse cleanly (or accept, for JSON variants). */
export const CONTENT_TYPES: readonly string[] = [
  'text/plain',
  'text/plain; charset=utf-8',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'multipart/form-data; boundary=x',
  'multipart/form-data; boundary=',
  'application/octet-stream',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json;;',
  'APPLICATION/JSON',
  'application/merge-patch+json',
  'application/vnd.api+json',
  'text/json',
  'application/jsonx',
  '*/*',
  'json',
  ';',
  'application/json; boundary="x"',
]

export const contentType: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...CONTENT_TYPES),
  fc.string({unit: 'grapheme-ascii', maxLength: 30}).filter((s) => /^[\x20-\x7e]*$/.test(s)),
)

/** Percent-encodes every byte of the UTF-8 form (lone surrogates become U+FFFD, as a client would send). */
export function percentEncode(s: string): string {
  return [...Buffer.from(s, 'utf8')]
    .map((b) =>
      (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x5f
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('')
}

/** A path segment: encoded hostile text, or raw broken escapes and dot segments. */
export const pathSegment: fc.Arbitrary<string> = fc.oneof(
  nastyString.map(percentEncode),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '%00', '..', '.', '%2e%2e', '%2F', 'a%2Fb', 'x'.repeat(501), '%C0%AF'),
  fc.string({unit: 'grapheme-ascii', minLength: 1, maxLength: 30}).map(percentEncode),
)

/** A query string (without `?`) built from known and hostile keys, repeated keys, and broken escapes. */
export function queryString(knownKeys: readonly string[]): fc.Arbitrary<string> {
  const key = fc.oneof(
    {weight: 3, arbitrary: knownKeys.length > 0 ? fc.constantFrom(...knownKeys) : fc.constant('x')},
    {weight: 1, arbitrary: fc.constantFrom(...DANGEROUS_KEYS, `__proto__[${POLLUTION_MARK}]`, 'a[b]', 'a.b', '')},
    {weight: 1, arbitrary: nastyString},
  )
  const value = fc.oneof(
    nastyString,
    fc.constantFrom('1', '0', '-1', '1.5', '1e3', '100', '101', '9007199254740993', 'true', 'false', 'ALL', 'EUR'),
    oddNumber.map(String),
  )
  const pair = fc.oneof(
    {weight: 5, arbitrary: fc.tuple(key, value).map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`)},
    {weight: 1, arbitrary: key.map(percentEncode)},
    {weight: 1, arbitrary: fc.constantFrom('=', '&', '%', 'a=%', 'a=%E0%A4%A', '%zz=1', 'a==b', '=x')},
  )
  return fc.array(pair, {maxLength: 6}).map((pairs) => pairs.join('&'))
}

/** Every path into a JSON value (object keys and array indexes), the root excluded. */
export function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = []
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      out.push([...prefix, i], ...pathsOf(v, [...prefix, i]))
    })
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) out.push([...prefix, k], ...pathsOf(v, [...prefix, k]))
  }
  return out
}

/** A deep copy of a JSON value with the value at `path` replaced (or removed when `remove`). */
export function withAt(value: unknown, path: readonly (string | number)[], next: unknown, remove = false): unknown {
  if (path.length === 0) return next
  const [head, ...rest] = path
  if (Array.isArray(value)) {
    const copy = [...value]
    if (rest.length === 0 && remove) copy.splice(head as number, 1)
    else copy[head as number] = withAt(copy[head as number], rest, next, remove)
    return copy
  }
  const entries = Object.entries(value as Record<string, unknown>)
  const out: [string, unknown][] = []
  for (const [k, v] of entries) {
    if (k !== head) out.push([k, v])
    else if (!(rest.length === 0 && remove)) out.push([k, withAt(v, rest, next, remove)])
  }
  return objectOf(out)
}

/**
 * Mutations of a valid sample body: one known field (at any depth) given a wrong
 * type, an odd value, a huge string or deep nesting; a field removed; or a
 * hostile extra key added. The result is JSON text; `deep: false` leaves deep nesting out.
 */
export function mutatedSample(sample: unknown, opts: {deep?: boolean} = {}): fc.Arbitrary<string> {
  const paths = pathsOf(sample)
  if (paths.length === 0) return fc.constant(jsonText(sample))
  const path = fc.constantFrom(...paths)
  const replaced = fc
    .tuple(
      path,
      fc.oneof(
        {weight: 6, arbitrary: wrongValue},
        {weight: 1, arbitrary: fc.integer({min: 10_000, max: 300_000}).map((n) => 'x'.repeat(n))},
        {weight: 1, arbitrary: fc.integer({min: 1000, max: 20_000}).map((n) => Array.from({length: n}, () => 1))},
        {weight: 1, arbitrary: jsonTree},
      ),
    )
    .map(([p, v]) => jsonText(withAt(sample, p, v)))
  const removed = path.map((p) => jsonText(withAt(sample, p, undefined, true)))
  const added = fc.tuple(fc.constantFrom(...paths, []), keyArb, wrongValue).map(([p, k, v]) => {
    const target = p.length === 0 ? sample : p.reduce<unknown>((o, s) => (o as Record<string, unknown>)[s], sample)
    if (target === null || typeof target !== 'object' || Array.isArray(target)) return jsonText(sample)
    return jsonText(withAt(sample, p, objectOf([...Object.entries(target), [k, v]])))
  })
  const deepened = fc
    .tuple(path, fc.constantFrom(1000, 20_000, 200_000))
    .map(([p, depth]) => jsonText(withAt(sample, p, new Raw(deepText(depth, 'array')))))
  if (opts.deep === false) return fc.oneof({weight: 6, arbitrary: replaced}, {weight: 1, arbitrary: removed}, added)
  return fc.oneof({weight: 6, arbitrary: replaced}, {weight: 1, arbitrary: removed}, added, deepened)
}

/** Byte sequences that are not UTF-8: a CESU-8 surrogate, overlongs, a cut sequence, stray continuation bytes. */
const BAD_UTF8: readonly number[][] = [
  [0xed, 0xa0, 0x80],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xe2, 0x82],
  [0x80, 0xbf],
  [0xff, 0xfe],
  [0xf4, 0x90, 0x80, 0x80],
]

/** A valid sample with one string field's text replaced by bytes that are not UTF-8 (JSON text otherwise). */
export function badUtf8Sample(sample: unknown): fc.Arbitrary<Uint8Array> {
  const stringPaths = pathsOf(sample).filter(
    (p) => typeof p.reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], sample) === 'string',
  )
  const mark = 'BADUTF8MARK'
  if (stringPaths.length === 0) return fc.constant(new Uint8Array(Buffer.from(jsonText(sample))))
  return fc.tuple(fc.constantFrom(...stringPaths), fc.constantFrom(...BAD_UTF8)).map(([path, bytes]) => {
    const [before, after] = jsonText(withAt(sample, path, mark)).split(mark) as [string, string]
    return new Uint8Array(Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]))
  })
}

/** One generated request body: the bytes and the Content-Type to send them with. */
export interface BodyCase {
  body: string | Uint8Array
  contentType: string
}

const json = (body: string | Uint8Array): BodyCase => ({body, contentType: 'application/json'})

/** Bodies for any JSON route: arbitrary JSON, hostile JSON, invalid JSON, binary, huge, deep, wrong types. */
export function anyBody(sample: unknown): fc.Arbitrary<BodyCase> {
  const sampleText = jsonText(sample)
  return fc.oneof(
    {weight: 3, arbitrary: jsonTree.map((v) => json(jsonText(v)))},
    {weight: 2, arbitrary: fc.jsonValue().map((v) => json(JSON.stringify(v)))},
    {weight: 2, arbitrary: fc.anything().map((v) => json(JSON.stringify(v) ?? 'null'))},
    {weight: 4, arbitrary: mutatedSample(sample).map(json)},
    {weight: 2, arbitrary: malformedJson.map(json)},
    {weight: 1, arbitrary: deepBody.map(json)},
    {weight: 1, arbitrary: fc.constantFrom(...protoPayloads()).map(json)},
    {weight: 1, arbitrary: fc.uint8Array({maxLength: 64}).map(json)},
    {weight: 1, arbitrary: badUtf8Sample(sample).map(json)},
    {
      weight: 1,
      arbitrary: fc.integer({min: 1, max: sampleText.length}).map((n) => json(sampleText.slice(0, n))),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(10_000, 100_000), fc.constantFrom('1', 'null', '"x"', '{}', sampleText))
        .map(([n, item]) => json(`[${Array.from({length: n}, () => item).join(',')}]`)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(contentType, fc.oneof(fc.constant(sampleText), malformedJson))
        .map(([type, body]) => ({body, contentType: type})),
    },
  )
}

/** multipart/form-data bodies, well-formed or not, with hostile names and file names. */
export const multipartBody: fc.Arbitrary<BodyCase> = fc
  .record({
    boundary: fc.oneof(fc.constantFrom('XyZ', '----fuzz', 'a'.repeat(70)), fc.string({minLength: 1, maxLength: 10})),
    parts: fc.array(
      fc.record({
        name: fc.oneof(fc.constantFrom('files', 'file', '__proto__', 'constructor', ''), nastyString),
        filename: fc.option(nastyString),
        type: fc.option(fc.constantFrom('model/stl', 'text/plain', 'application/octet-stream', '')),
        content: fc.oneof(fc.string({maxLength: 40}), fc.constantFrom('solid x\nendsolid x\n', '')),
      }),
      {maxLength: 4},
    ),
    cut: fc.option(fc.nat()),
    headerBoundary: fc.option(fc.string({maxLength: 10})),
  })
  .map(({boundary, parts, cut, headerBoundary}) => {
    const clean = (s: string) => s.replace(/[\r\n"]/g, '_')
    let text = ''
    for (const p of parts) {
      text += `--${boundary}\r\nContent-Disposition: form-data; name="${clean(p.name)}"`
      if (p.filename !== null) text += `; filename="${clean(p.filename)}"`
      text += '\r\n'
      if (p.type !== null) text += `Content-Type: ${p.type}\r\n`
      text += `\r\n${p.content}\r\n`
    }
    text += `--${boundary}--\r\n`
    if (cut !== null) text = text.slice(0, cut % (text.length + 1))
    const b = headerBoundary ?? boundary
    return {body: text, contentType: `multipart/form-data; boundary=${/^[\w-]+$/.test(b) ? b : `"${clean(b)}"`}`}
  })

/**
 * Damage to a file: cut at a random point, bytes overwritten, a span removed or
 * duplicated, or garbage appended. Deterministic for a given input and seed list.
 */
export function damaged(original: Uint8Array): fc.Arbitrary<Uint8Array> {
  const n = original.length
  const at = fc.nat({max: Math.max(0, n - 1)})
  const cut = at.map((i) => original.slice(0, i))
  const flipped = fc.array(fc.tuple(at, fc.integer({min: 0, max: 255})), {minLength: 1, maxLength: 30}).map((edits) => {
    const copy = original.slice()
    for (const [i, b] of edits) copy[i] = b
    return copy
  })
  const spliced = fc.tuple(at, at).map(([a, b]) => {
    const [lo, hi] = a <= b ? [a, b] : [b, a]
    return Buffer.concat([original.subarray(0, lo), original.subarray(hi)])
  })
  const doubled = fc.tuple(at, at).map(([a, b]) => {
    const [lo, hi] = a <= b ? [a, b] : [b, a]
    return Buffer.concat([original.subarray(0, hi), original.subarray(lo, hi), original.subarray(hi)])
  })
  const appended = fc.uint8Array({minLength: 1, maxLength: 200}).map((tail) => Buffer.concat([original, tail]))
  return fc.oneof(cut, flipped, spliced, doubled, appended).map((b) => new Uint8Array(b))
}

/** Request headers besides the body's: odd Idempotency-Key values and encodings the sandbox does not decode. */
export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc
  .record(
    {
      'idempotency-key': fc.oneof(
        fc.string({unit: 'grapheme-ascii', maxLength: 40}).filter((s) => /^[\x20-\x7e]*$/.test(s)),
        fc.constantFrom('', ' ', 'x'.repeat(8000), '\u00ff\u00fe'),
      ),
      'content-encoding': fc.constantFrom('gzip', 'br', 'deflate', 'identity', 'x-unknown', ''),
    },
    {requiredKeys: []},
  )
  .map((headers) => headers as Record<string, string>)
