import { joinBytes } from './encoding.js';

/** Parses JSON stored by the project itself; a corrupt value reads as the fallback instead of failing a request. */
export function readJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  // The stored empty values, by far the most common ones (tags, lists), without the parser.
  if (text === '[]') return [] as T;
  if (text === '{}') return {} as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    return fallback;
  }
}

/** Sorted, de-duplicated copy of a string list: role attributes and role lists are stored as sets. */
export function toSet(values: readonly string[] | null | undefined): string[] {
  return [...new Set(values ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Shared values serialised once per response. A page of services repeats the same `postureQueries` many
 * times (the worst-case identity's 500 services share about 40 distinct lists, 2.4 MB of its 2.8 MB
 * answer): `serialise` writes each such value once, encodes it to UTF-8 once, and copies its bytes wherever
 * it appears, instead of serialising and encoding it again at every appearance (6.4 ms → 1.3 ms for that
 * answer, measured).
 *
 * A value marked by `serialisedOnce` stays what it is (an array stays an array, typed as before); only its
 * `toJSON` changes. Inside `serialise` it serialises as a marker string (a control character, which JSON
 * writes escaped, a random per-process nonce and its index), which `serialise` replaces with the value's text;
 * anywhere else (`JSON.stringify` in a test, a log) it serialises as itself. Marked values must not change
 * once serialised: their text is kept.
 */
// ASCII once escaped: a character outside Latin-1 would make V8 build the whole answer as a two-byte
// string, measured 4× slower to write, search and encode.
const MARK = '\u0001';
const MARK_WRITTEN = '\\u0001';
/** Unknown to callers, so no stored string can pass for a marker. Made on first use (Workers forbid randomness at startup). */
let nonce: string | undefined;

interface Marked {
  text: string;
  bytes?: Uint8Array;
}
/** The marked values met by the serialisation in progress (synchronous, so never interleaved). */
let serialising: Marked[] | undefined;
const utf8 = new TextEncoder();

function plainCopy<T extends object>(value: T): T {
  // Neither copy carries the `toJSON` (an array's slice copies its elements, a spread its enumerable keys).
  return (Array.isArray(value) ? value.slice() : { ...value }) as T;
}

/** Marks the value (its `toJSON`) and gives what makes its kept text, made on the first call. */
function mark<T extends object>(value: T): () => Marked {
  let marked: Marked | undefined;
  const made = () => (marked ??= { text: spliced(withMarkers(plainCopy(value))) });
  Object.defineProperty(value, 'toJSON', {
    value(): unknown {
      const met = serialising;
      if (!met) return plainCopy(value);
      met.push(made());
      return MARK + nonce! + (met.length - 1);
    },
  });
  return made;
}

export function serialisedOnce<T extends object>(value: T): T {
  mark(value);
  return value;
}

/**
 * `serialisedOnce`, serialised and encoded now: for a value kept to be answered again (every later
 * `serialise` copies its bytes), with the size of its UTF-8 text.
 */
export function serialisedNow<T extends object>(value: T): { value: T; bytes: number } {
  const marked = mark(value)();
  return { value, bytes: (marked.bytes ??= utf8.encode(marked.text)).length };
}

/** `JSON.stringify` with marked values written as markers, and the values met. */
function withMarkers(value: unknown): { out: string; met: Marked[] } {
  nonce ??= Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
  const outer = serialising;
  const met: Marked[] = [];
  serialising = met;
  try {
    return { out: JSON.stringify(value), met };
  } finally {
    serialising = outer;
  }
}

/** Calls `piece` with the text between markers and `marked` with each marked value, in order. */
function eachPiece(out: string, met: readonly Marked[], piece: (text: string) => void, marked: (m: Marked) => void): void {
  const open = '"' + MARK_WRITTEN + nonce;
  let from = 0;
  for (let at = out.indexOf(open); at >= 0; at = out.indexOf(open, from)) {
    const end = out.indexOf('"', at + open.length);
    piece(out.slice(from, at));
    marked(met[Number(out.slice(at + open.length, end))]);
    from = end + 1;
  }
  piece(out.slice(from));
}

function spliced({ out, met }: { out: string; met: Marked[] }): string {
  if (met.length === 0) return out;
  const parts: string[] = [];
  eachPiece(out, met, (t) => parts.push(t), (m) => parts.push(m.text));
  return parts.join('');
}

/** From this size on, an answer made of a few pieces is given as them, not copied into one buffer. */
const PIECES_FROM = 256 * 1024;
const FEW_PIECES = 8;

/**
 * `JSON.stringify`, with each value marked by `serialisedOnce` serialised once: a string when nothing is
 * marked, else the UTF-8 bytes, with each marked value's bytes encoded once and copied in. A large answer
 * of a few pieces (a kept page in its envelope) is given as its pieces, the marked values' own bytes among
 * them: copying 2.8 MB into a new buffer for every answer cost the allocation, and the full garbage
 * collections it brings, more than the copy.
 */
export function serialise(value: unknown): string | Uint8Array | Uint8Array[] {
  const { out, met } = withMarkers(value);
  if (met.length === 0) return out;
  // `met` has an entry per appearance, so this counts each copy.
  let markedBytes = 0;
  for (const m of met) markedBytes += (m.bytes ??= utf8.encode(m.text)).length;
  if (met.length < FEW_PIECES && markedBytes >= PIECES_FROM) {
    const pieces: Uint8Array[] = [];
    eachPiece(out, met, (t) => t.length > 0 && pieces.push(utf8.encode(t)), (m) => pieces.push(m.bytes!));
    return pieces;
  }
  // Written straight into one buffer: the text between markers encoded in place, each marked value's
  // bytes (encoded once) copied in. Sized for all-ASCII text, which JSON of this answer nearly always is;
  // text with wider characters goes through the chunked path instead. The markers' own text only adds slack.
  const size = out.length + markedBytes;
  const bytes = new Uint8Array(size);
  let at = 0;
  let fits = true;
  eachPiece(
    out,
    met,
    (t) => {
      if (!fits) return;
      const { read, written } = utf8.encodeInto(t, bytes.subarray(at));
      fits = read === t.length;
      at += written;
    },
    (m) => {
      if (!fits) return;
      bytes.set(m.bytes!, at);
      at += m.bytes!.length;
    },
  );
  if (fits) return at === size ? bytes : bytes.subarray(0, at);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const add = (b: Uint8Array) => {
    chunks.push(b);
    total += b.length;
  };
  eachPiece(out, met, (t) => add(utf8.encode(t)), (m) => add(m.bytes!));
  return joinBytes(chunks, total);
}
