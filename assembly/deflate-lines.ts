// Lines of the text format compressed as raw deflate data (RFC 1951) that ends in a sync flush, as
// zlib's deflateRaw with Z_SYNC_FLUSH ends it: one block with its own Huffman codes, then an empty
// stored block. Made for a family's lines, where a line is mostly the line before it: each line is
// matched against the two lines before it, aligned at their starts (the metric name and the first
// labels) and at their ends (the last labels and the first digits of the value), and whatever matches
// in neither is a literal; a match at the end of one line runs on into the start of the next (they are
// at the same distance). Nothing else is searched: on a family's lines it is faster than zlib's level 1,
// for output a few percent smaller. Any bytes are compressed correctly (a match is only ever bytes that
// are equal); bytes that are not lines just compress badly. Built by
// scripts/build-wasm.mjs; src/exposition/deflate-lines.ts drives it.
//
// Memory (the module's own, never grown; src/exposition/deflate-lines.ts keeps the same numbers):
//   [0, 49152)          tables, below
//   [INPUT, ...)        the bytes to compress, MAX_INPUT at most, with 64 KiB to spare after them
//   [TOKENS, ...)       literals and matches found, a u32 each
//   [OUTPUT, ...)       the deflate data written

const MAX_INPUT: usize = 1 << 20;
const INPUT: usize = 65536;
const TOKENS: usize = INPUT + MAX_INPUT + 65536;
const OUTPUT: usize = TOKENS + (MAX_INPUT << 2);

// Tables.
/** u8 per length 0..258: its length symbol minus 257. */
const LENGTH_SYMBOL: usize = 0;
/** u8 per distance 0..32768: its distance symbol. */
const DISTANCE_SYMBOL: usize = 512;
/** u16 base and u8 extra bits per length symbol (29) and per distance symbol (30). */
const LENGTH_BASE: usize = 33792;
const LENGTH_EXTRA: usize = 33856;
const DISTANCE_BASE: usize = 33920;
const DISTANCE_EXTRA: usize = 33984;
/** u32 frequencies: literal/length (286), distance (30), code length (19) symbols. */
const LIT_FREQ: usize = 34048;
const DIST_FREQ: usize = 35200;
const CL_FREQ: usize = 35328;
/** u8 code lengths and u16 codes (bits reversed, as they are written) of the same symbols. */
const LIT_LEN: usize = 35456;
const DIST_LEN: usize = 35776;
const CL_LEN: usize = 35840;
const LIT_CODE: usize = 35904;
const DIST_CODE: usize = 36480;
const CL_CODE: usize = 36544;
/** Building a code: u32 weights and u16 parents of up to 2 * 286 nodes, u16 leaves in order, u8 depths. */
const NODE_WEIGHT: usize = 36608;
const NODE_PARENT: usize = 38912;
const LEAF_ORDER: usize = 40064;
const NODE_DEPTH: usize = 40704;
/** u16 counts and next codes per length (0..15). */
const LENGTH_COUNT: usize = 41344;
const NEXT_CODE: usize = 41408;
/** The literal/length then distance code lengths in a row (HLIT + HDIST), and their run-length symbols (u32). */
const ALL_LENGTHS: usize = 41472;
const CL_SYMBOLS: usize = 41856;
/**
 * Per literal (0..255) and per match length (3..258): its code and extra bits as written, with their
 * count in the top byte, made for each block from its codes (one write each).
 */
const LITERAL_BITS: usize = 43520;
const LENGTH_BITS: usize = 44544;
/** i32: the distances matches of the line being read are looked for at. */
const CANDIDATE: usize = 45600;
const CANDIDATES: usize = 4;

const MATCH: u32 = 0x80000000;
const MIN_MATCH: i32 = 3;
const MAX_MATCH: i32 = 258;
const MAX_DISTANCE: i32 = 32768;
const END_OF_BLOCK: i32 = 256;

let ready = false;

/** The order code length code lengths are sent in (RFC 1951 3.2.7). */
const ORDER = memory.data<u8>([16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]);

function setUp(): void {
  let base: i32 = 3;
  for (let s = 0; s < 29; s++) {
    const extra: i32 = s < 8 || s === 28 ? 0 : (s - 4) >> 2;
    // Length 258 has a symbol of its own (285), not the last of 284's range.
    const start = s === 28 ? 258 : base;
    store<u16>(LENGTH_BASE + ((<usize>s) << 1), <u16>start);
    store<u8>(LENGTH_EXTRA + <usize>s, extra);
    const end = s === 28 ? 259 : min(base + (1 << extra), 259);
    for (let l = start; l < end; l++) store<u8>(LENGTH_SYMBOL + <usize>l, <u8>s);
    base += 1 << extra;
  }
  base = 1;
  for (let s = 0; s < 30; s++) {
    const extra: i32 = s < 4 ? 0 : (s - 2) >> 1;
    store<u16>(DISTANCE_BASE + ((<usize>s) << 1), <u16>base);
    store<u8>(DISTANCE_EXTRA + <usize>s, extra);
    for (let d = base; d < base + (1 << extra) && d <= MAX_DISTANCE; d++) store<u8>(DISTANCE_SYMBOL + <usize>d, <u8>s);
    base += 1 << extra;
  }
  ready = true;
}

/** How many bytes from p equal those from q, up to `limit`: 16 at a time. */
function matchLength(p: usize, q: usize, limit: i32): i32 {
  let m: i32 = 0;
  while (m < limit) {
    const same = i8x16.bitmask(i8x16.eq(v128.load(p + <usize>m), v128.load(q + <usize>m)));
    if (same !== 0xffff) {
      m += ctz(~same);
      break;
    }
    m += 16;
  }
  return min(m, limit);
}

/**
 * The first position from p on (before e, or e) where a match of three bytes may start at one of the
 * candidate distances: 16 bytes compared at a time for each.
 */
function nextMatchStart(p: usize, e: usize): usize {
  while (p < e) {
    let starts: i32 = 0;
    for (let k: usize = 0; k < CANDIDATES; k++) {
      const d = <usize>load<i32>(CANDIDATE + (k << 2));
      if (d === 0 || d > p) continue;
      const same = i8x16.bitmask(i8x16.eq(v128.load(INPUT + p), v128.load(INPUT + p - d)));
      starts |= same & (same >> 1) & (same >> 2) & 0x3fff; // bytes j, j+1, j+2 all equal (j < 14)
    }
    if (starts !== 0) return min(p + <usize>ctz(starts), e);
    p += 14;
  }
  return e;
}

/** Candidate distance k of the line being read: one that reaches no byte of the input's or too far is 0. */
function setCandidate(k: usize, d: i32): void {
  store<i32>(CANDIDATE + (k << 2), d > 0 && d <= MAX_DISTANCE ? d : 0);
}

/** Where the line starting at i ends (after its newline, or at n): 32 bytes at a time. */
function lineEnd(i: usize, n: usize): usize {
  const newline = i8x16.splat(0x0a);
  let p = i;
  while (p < n) {
    const low = i8x16.bitmask(i8x16.eq(v128.load(p), newline));
    const high = i8x16.bitmask(i8x16.eq(v128.load(p + 16), newline));
    const found = <u32>low | ((<u32>high) << 16);
    if (found !== 0) {
      const at = p + <usize>ctz(found);
      return at < n ? at + 1 : n;
    }
    p += 32;
  }
  return n;
}

/** Finds the literals and matches of input[0, n) into TOKENS, counting their symbols; the tokens written. */
function tokenize(n: usize): usize {
  memory.fill(LIT_FREQ, 0, 286 << 2);
  memory.fill(DIST_FREQ, 0, 30 << 2);
  let t = TOKENS;
  let prevStart: i32 = -1;
  let prevLength: i32 = 0;
  let olderStart: i32 = -1;
  let olderLength: i32 = 0;
  let i: usize = 0;
  // A match may run on into the next lines (the end of one line and the start of the next, at the
  // same distance, are one match): those lines' bytes before p are done.
  let p: usize = 0;
  while (i < n) {
    const e = lineEnd(INPUT + i, INPUT + n) - INPUT;
    const length = <i32>(e - i);
    // Where each line before this one would be matched: at its start, and at its end (0: none).
    const d1: i32 = prevStart < 0 ? 0 : <i32>i - prevStart;
    const d2: i32 = prevStart < 0 ? 0 : d1 + length - prevLength;
    const d3: i32 = olderStart < 0 ? 0 : <i32>i - olderStart;
    const d4: i32 = olderStart < 0 ? 0 : d3 + length - olderLength;
    setCandidate(0, d1);
    setCandidate(1, d2 !== d1 ? d2 : 0);
    setCandidate(2, d3);
    setCandidate(3, d4 !== d3 ? d4 : 0);
    while (p < e) {
      const limit = min(<i32>(n - p), MAX_MATCH);
      // Most bytes of a line's differing part match at no candidate: three bytes are compared first.
      const here = load<u32>(INPUT + p) & 0xffffff;
      let best: i32 = 0;
      let distance: i32 = 0;
      for (let k: usize = 0; k < CANDIDATES && best < limit && limit >= MIN_MATCH; k++) {
        const d = <usize>load<i32>(CANDIDATE + (k << 2));
        if (d === 0 || d > p) continue;
        const from = INPUT + p - d;
        if ((load<u32>(from) & 0xffffff) !== here) continue;
        // Longer than `best` only if the byte after best matches too (as zlib's longest_match looks first).
        if (best > 0 && load<u8>(from + <usize>best) !== load<u8>(INPUT + p + <usize>best)) continue;
        const m = matchLength(INPUT + p, from, limit);
        if (m > best) {
          best = m;
          distance = <i32>d;
        }
      }
      if (best >= MIN_MATCH) {
        store<u32>(t, MATCH | ((<u32>best) << 16) | <u32>distance);
        const ls = <usize>load<u8>(LENGTH_SYMBOL + <usize>best);
        const lf = LIT_FREQ + ((257 + ls) << 2);
        store<u32>(lf, load<u32>(lf) + 1);
        const df = DIST_FREQ + ((<usize>load<u8>(DISTANCE_SYMBOL + <usize>distance)) << 2);
        store<u32>(df, load<u32>(df) + 1);
        p += <usize>best;
        t += 4;
        continue;
      }
      // Literals up to where some candidate has three equal bytes again, found 16 bytes at a time.
      const q = nextMatchStart(p + 1, e);
      for (; p < q; p++) {
        const c = <u32>load<u8>(INPUT + p);
        store<u32>(t, c);
        t += 4;
        const lf = LIT_FREQ + ((<usize>c) << 2);
        store<u32>(lf, load<u32>(lf) + 1);
      }
    }
    olderStart = prevStart;
    olderLength = prevLength;
    prevStart = <i32>i;
    prevLength = length;
    i = e;
  }
  store<u32>(LIT_FREQ + ((<usize>END_OF_BLOCK) << 2), 1);
  return t;
}

/**
 * Huffman code lengths of at most `maxBits` for the `n` symbols whose frequencies are at `freq` (u32),
 * into `lengths` (u8): the two-queue construction over the symbols sorted by frequency. Where a length
 * would exceed maxBits, the frequencies are halved (each kept above zero) and the code built again. At
 * least two symbols get a code, as zlib's trees.c makes it, so that every code is complete.
 */
function codeLengths(freq: usize, n: i32, maxBits: i32, lengths: usize): void {
  let used: i32 = 0;
  for (let s = 0; s < n; s++) if (load<u32>(freq + ((<usize>s) << 2)) > 0) used++;
  for (let s = 0; s < n && used < 2; s++) {
    if (load<u32>(freq + ((<usize>s) << 2)) === 0) {
      store<u32>(freq + ((<usize>s) << 2), 1);
      used++;
    }
  }
  let shift: u32 = 0;
  while (true) {
    // Leaves by weight (insertion sort: a few hundred symbols).
    let leaves: i32 = 0;
    for (let s = 0; s < n; s++) {
      const f = load<u32>(freq + ((<usize>s) << 2));
      if (f === 0) continue;
      const w = max(f >> shift, 1);
      let k = leaves;
      while (k > 0) {
        const other = <i32>load<u16>(LEAF_ORDER + ((<usize>(k - 1)) << 1));
        if (load<u32>(NODE_WEIGHT + ((<usize>other) << 2)) <= w) break;
        store<u16>(LEAF_ORDER + ((<usize>k) << 1), <u16>other);
        k--;
      }
      store<u16>(LEAF_ORDER + ((<usize>k) << 1), <u16>s);
      store<u32>(NODE_WEIGHT + ((<usize>s) << 2), w);
      leaves++;
    }
    // Internal nodes are numbered from n on, made in order of weight: two queues, leaves and nodes.
    let leaf: i32 = 0;
    let node: i32 = n;
    let made: i32 = n;
    while (made - n < leaves - 1) {
      let pair: u32 = 0;
      for (let k = 0; k < 2; k++) {
        let pick: i32;
        const nodeReady = node < made;
        if (
          leaf < leaves &&
          (!nodeReady ||
            load<u32>(NODE_WEIGHT + ((<usize>load<u16>(LEAF_ORDER + ((<usize>leaf) << 1))) << 2)) <=
              load<u32>(NODE_WEIGHT + ((<usize>node) << 2)))
        ) {
          pick = <i32>load<u16>(LEAF_ORDER + ((<usize>leaf) << 1));
          leaf++;
        } else {
          pick = node;
          node++;
        }
        pair += load<u32>(NODE_WEIGHT + ((<usize>pick) << 2));
        store<u16>(NODE_PARENT + ((<usize>pick) << 1), <u16>made);
      }
      store<u32>(NODE_WEIGHT + ((<usize>made) << 2), pair);
      made++;
    }
    // Depths from the root (the last node made) down: a parent is always made after its children.
    const root = made - 1;
    store<u8>(NODE_DEPTH + <usize>root, 0);
    for (let k = root - 1; k >= n; k--) {
      store<u8>(NODE_DEPTH + <usize>k, load<u8>(NODE_DEPTH + <usize>load<u16>(NODE_PARENT + ((<usize>k) << 1))) + 1);
    }
    let longest: i32 = 0;
    for (let s = 0; s < n; s++) {
      let length: i32 = 0;
      if (load<u32>(freq + ((<usize>s) << 2)) > 0) {
        length = <i32>load<u8>(NODE_DEPTH + <usize>load<u16>(NODE_PARENT + ((<usize>s) << 1))) + 1;
      }
      store<u8>(lengths + <usize>s, <u8>length);
      if (length > longest) longest = length;
    }
    if (longest <= maxBits) return;
    shift++;
  }
}

/** Canonical codes (RFC 1951 3.2.2) for `n` lengths at `lengths` (u8), bits reversed, into `codes` (u16). */
function canonicalCodes(lengths: usize, n: i32, codes: usize): void {
  memory.fill(LENGTH_COUNT, 0, 32);
  for (let s = 0; s < n; s++) {
    const l = <usize>load<u8>(lengths + <usize>s);
    store<u16>(LENGTH_COUNT + (l << 1), load<u16>(LENGTH_COUNT + (l << 1)) + 1);
  }
  store<u16>(LENGTH_COUNT, 0);
  let code: u32 = 0;
  for (let bits: usize = 1; bits <= 15; bits++) {
    code = (code + <u32>load<u16>(LENGTH_COUNT + ((bits - 1) << 1))) << 1;
    store<u16>(NEXT_CODE + (bits << 1), <u16>code);
  }
  for (let s = 0; s < n; s++) {
    const l = <usize>load<u8>(lengths + <usize>s);
    if (l === 0) continue;
    const c = <u32>load<u16>(NEXT_CODE + (l << 1));
    store<u16>(NEXT_CODE + (l << 1), <u16>(c + 1));
    // Huffman codes are sent most significant bit first into a stream read from the least.
    let reversed: u32 = 0;
    for (let b: usize = 0; b < l; b++) reversed |= ((c >> <u32>b) & 1) << (<u32>(l - 1 - b));
    store<u16>(codes + ((<usize>s) << 1), <u16>reversed);
  }
}

// The bit writer: bits gather from the least significant end and go out 32 at a time.
let out: usize = OUTPUT;
let bits: u64 = 0;
let count: u32 = 0;

function put(value: u32, n: u32): void {
  bits |= (<u64>value) << (<u64>count);
  count += n;
  if (count >= 32) {
    store<u32>(out, <u32>bits);
    out += 4;
    bits >>= 32;
    count -= 32;
  }
}

function putSymbol(codes: usize, lengths: usize, s: usize): void {
  put(<u32>load<u16>(codes + (s << 1)), <u32>load<u8>(lengths + s));
}

/** The block's header: its type, the code lengths of both codes run-length coded, and the code that codes them. */
function writeHeader(): void {
  let literals: i32 = 286;
  while (literals > 257 && load<u8>(LIT_LEN + <usize>(literals - 1)) === 0) literals--;
  let distances: i32 = 30;
  while (distances > 1 && load<u8>(DIST_LEN + <usize>(distances - 1)) === 0) distances--;
  const total = literals + distances;
  memory.copy(ALL_LENGTHS, LIT_LEN, <usize>literals);
  memory.copy(ALL_LENGTHS + <usize>literals, DIST_LEN, <usize>distances);
  // Runs of a length: 16 repeats the last length 3-6 times, 17 and 18 write 3-10 and 11-138 zeros.
  memory.fill(CL_FREQ, 0, 19 << 2);
  let symbols: usize = 0;
  let k: i32 = 0;
  while (k < total) {
    const length = <u32>load<u8>(ALL_LENGTHS + <usize>k);
    let run: i32 = 1;
    while (k + run < total && <u32>load<u8>(ALL_LENGTHS + <usize>(k + run)) === length) run++;
    k += run;
    if (length === 0) {
      while (run >= 11) {
        const r = min(run, 138);
        store<u32>(CL_SYMBOLS + (symbols++ << 2), 18 | ((<u32>(r - 11)) << 8));
        run -= r;
      }
      if (run >= 3) {
        store<u32>(CL_SYMBOLS + (symbols++ << 2), 17 | ((<u32>(run - 3)) << 8));
        run = 0;
      }
    } else {
      store<u32>(CL_SYMBOLS + (symbols++ << 2), length);
      run--;
      while (run >= 3) {
        const r = min(run, 6);
        store<u32>(CL_SYMBOLS + (symbols++ << 2), 16 | ((<u32>(r - 3)) << 8));
        run -= r;
      }
    }
    for (; run > 0; run--) store<u32>(CL_SYMBOLS + (symbols++ << 2), length);
  }
  for (let j: usize = 0; j < symbols; j++) {
    const f = CL_FREQ + ((<usize>(load<u32>(CL_SYMBOLS + (j << 2)) & 0xff)) << 2);
    store<u32>(f, load<u32>(f) + 1);
  }
  codeLengths(CL_FREQ, 19, 7, CL_LEN);
  canonicalCodes(CL_LEN, 19, CL_CODE);
  let sent: i32 = 19;
  while (sent > 4 && load<u8>(CL_LEN + <usize>load<u8>(ORDER + <usize>(sent - 1))) === 0) sent--;
  put(0b100, 3); // not the last block; dynamic Huffman codes (BTYPE 10)
  put(<u32>(literals - 257), 5);
  put(<u32>(distances - 1), 5);
  put(<u32>(sent - 4), 4);
  for (let j = 0; j < sent; j++) put(<u32>load<u8>(CL_LEN + <usize>load<u8>(ORDER + <usize>j)), 3);
  for (let j: usize = 0; j < symbols; j++) {
    const symbol = load<u32>(CL_SYMBOLS + (j << 2));
    const s = <usize>(symbol & 0xff);
    putSymbol(CL_CODE, CL_LEN, s);
    if (s === 16) put(symbol >> 8, 2);
    else if (s === 17) put(symbol >> 8, 3);
    else if (s === 18) put(symbol >> 8, 7);
  }
}

/**
 * Compresses input[0, n) (n at most MAX_INPUT, written at INPUT by the caller): raw deflate data at
 * OUTPUT, ending in a sync flush. Returns its length.
 */
export function deflate(n: usize): usize {
  if (!ready) setUp();
  if (n > MAX_INPUT) return 0;
  const end = tokenize(n);
  codeLengths(LIT_FREQ, 286, 15, LIT_LEN);
  codeLengths(DIST_FREQ, 30, 15, DIST_LEN);
  canonicalCodes(LIT_LEN, 286, LIT_CODE);
  canonicalCodes(DIST_LEN, 30, DIST_CODE);
  out = OUTPUT;
  bits = 0;
  count = 0;
  writeHeader();
  for (let c: usize = 0; c < 256; c++) {
    store<u32>(LITERAL_BITS + (c << 2), <u32>load<u16>(LIT_CODE + (c << 1)) | ((<u32>load<u8>(LIT_LEN + c)) << 24));
  }
  for (let length: usize = 3; length <= 258; length++) {
    const ls = <usize>load<u8>(LENGTH_SYMBOL + length);
    const codeBits = <u32>load<u8>(LIT_LEN + 257 + ls);
    const extra = <u32>(length - <usize>load<u16>(LENGTH_BASE + (ls << 1)));
    const value = <u32>load<u16>(LIT_CODE + ((257 + ls) << 1)) | (extra << codeBits);
    store<u32>(LENGTH_BITS + (length << 2), value | ((codeBits + <u32>load<u8>(LENGTH_EXTRA + ls)) << 24));
  }
  for (let t = TOKENS; t < end; t += 4) {
    const token = load<u32>(t);
    if ((token & MATCH) === 0) {
      const bits = load<u32>(LITERAL_BITS + ((<usize>token) << 2));
      put(bits & 0xffffff, bits >> 24);
      continue;
    }
    const length = <usize>((token >> 16) & 0x1ff);
    const distance = <usize>(token & 0xffff);
    const lengthBits = load<u32>(LENGTH_BITS + (length << 2));
    put(lengthBits & 0xffffff, lengthBits >> 24);
    const ds = <usize>load<u8>(DISTANCE_SYMBOL + distance);
    putSymbol(DIST_CODE, DIST_LEN, ds);
    const de = <u32>load<u8>(DISTANCE_EXTRA + ds);
    if (de > 0) put(<u32>(distance - <usize>load<u16>(DISTANCE_BASE + (ds << 1))), de);
  }
  putSymbol(LIT_CODE, LIT_LEN, END_OF_BLOCK);
  // The sync flush: an empty stored block (not the last), from the next byte boundary.
  put(0, 3);
  while (count > 0) {
    store<u8>(out++, <u8>bits);
    bits >>= 8;
    count = count > 8 ? count - 8 : 0;
  }
  store<u32>(out, 0xffff0000);
  out += 4;
  return out - OUTPUT;
}
