// How deeply a YAML text nests, found before the `yaml` package parses it. Its composer and toJS
// recurse once per level: about 3,500 levels overflow a decoder thread's stack (800 on the main
// thread), and on Node 20 parsing such a text a second time aborts the whole process (V8's
// "RegExpCompiler Allocation failed", not a catchable error). So a text is measured first, in one
// pass with no regular expression and no recursion.
//
// The pass follows the state machine of yaml 2.x's Lexer (dist/parse/lexer.js, 2.9.1) position by
// position, without its tokens, so quoted scalars, comments, plain and block scalars end exactly
// where the parser's do and only real flow indicators count. On top of it:
// - flow: each `[`/`{` counts 2 (the collection, and the map an implicit `a: b` pair in a flow
//   sequence becomes); the lexer's flow level says how many are open.
// - block: a stack of the columns where block collections may have opened (line indents and what
//   follows a `- `, `? ` or `: ` indicator); a line pops the deeper ones. A column counts 2 once a
//   `- ` line starts at it (a sequence under a mapping key at the key's own column).
// The result is an upper bound: it may count a level the parser does not build, never the reverse
// (test/convert/yaml-depth.test.ts checks it against the parser on generated texts).

// Characters are compared as UTF-16 codes (NaN past the end of the text): several times faster than
// one-character strings on a 10 MB text.
const TAB = 9;
const LF = 10;
const CR = 13;
const SPACE = 32;
const FLOW = 1;
const ANCHOR_END = 2;
const TAG_CHAR = 4;
const HEX_DIGIT = 8;
const CLASSES = new Uint8Array(128);
const mark = (chars: string, flag: number) => {
  for (let i = 0; i < chars.length; i++) {
    const code = chars.charCodeAt(i);
    CLASSES[code] = (CLASSES[code] ?? 0) | flag;
  }
};
mark(",[]{}", FLOW);
mark(" ,[]{}\n\r\t", ANCHOR_END);
mark("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-#;/?:@&=+$_.!~*'()", TAG_CHAR);
mark("0123456789ABCDEFabcdef", HEX_DIGIT);
const is = (code: number, flag: number) => code < 128 && ((CLASSES[code] ?? 0) & flag) !== 0;

const isEmpty = (c: number) => c === SPACE || c === LF || c === CR || c === TAB || Number.isNaN(c);
const isNotAnchorChar = (c: number) => Number.isNaN(c) || is(c, ANCHOR_END);

/**
 * Levels of nesting a configuration text may have: real Prometheus and Alertmanager configurations
 * nest under 20 (counted as above, under 40); the parser fails from about 800 on the main thread.
 */
export const YAML_NESTING_LIMIT = 100;

/** Whether `text` may nest deeper than YAML_NESTING_LIMIT (then it is not to be parsed). */
export const nestsTooDeeply = (text: string): boolean =>
  yamlNestingBound(text, YAML_NESTING_LIMIT) > YAML_NESTING_LIMIT;

type State = "stream" | "line-start" | "block-start" | "doc" | "flow" | "quoted" | "block-scalar" | "plain" | "end";

/**
 * An upper bound of how deeply `text` nests collections. Stops counting once the bound passes
 * `stopAbove` (the answer is then some number above it).
 */
export function yamlNestingBound(text: string, stopAbove = Number.POSITIVE_INFINITY): number {
  const src = text;
  const len = src.length;
  let pos = 0;
  let flowLevel = 0;
  let flowKey = false;
  let indentNext = 0;
  let indentValue = 0;
  let blockScalarIndent = -1;
  let blockScalarKeep = false;

  // Block columns open (strictly increasing) and the levels each counts; the running sum and maximum.
  const columns: number[] = [];
  const weights: number[] = [];
  let blockLevels = 0;
  // The entry of the current line's indent, and how many `:` (and misplaced `-`/`?`) indicators the line
  // has had: from the second on, each is a mapping nested at the line's indent (an error the parser
  // recovers from by nesting), which lasts as long as that entry.
  let lineEntry = -1;
  let lineIndicators = 0;
  // Block collections the parser starts inside a flow collection (errors) end at its next `,` or at
  // its end: indicators counted per open flow level since then.
  const flowBlocks: number[] = [];
  let flowBlockLevels = 0;
  // A lone `[`, `{`, `-`, `?` or `:` after a block scalar header is read by the parser as that
  // indicator while the lexer moves on: it and all that was open then count as never closed.
  let stray = 0;
  let max = 0;
  const note = () => {
    const levels = blockLevels + 2 * flowLevel + flowBlockLevels + stray;
    if (levels > max) max = levels;
    return max > stopAbove;
  };
  // A collection may open at `col`: past the top column it is a new one; otherwise one more level is
  // counted at the top (conservative: the stack stays increasing).
  const open = (col: number) => {
    const top = columns.length - 1;
    if (top < 0 || col > (columns[top] ?? -1)) {
      columns.push(col);
      weights.push(1);
    } else weights[top] = (weights[top] ?? 0) + 1;
    blockLevels += 1;
  };
  const lineIndicator = () => {
    lineIndicators += 1;
    if (lineIndicators < 2) return;
    if (lineEntry < 0 || lineEntry >= columns.length) {
      open(0);
      lineEntry = columns.length - 1;
    } else {
      weights[lineEntry] = (weights[lineEntry] ?? 0) + 1;
      blockLevels += 1;
    }
  };
  const flowIndicator = () => {
    const top = flowBlocks.length - 1;
    if (top < 0) flowBlocks.push(0);
    flowBlocks[flowBlocks.length - 1] = (flowBlocks[flowBlocks.length - 1] ?? 0) + 1;
    flowBlockLevels += 1;
  };
  const flowEnter = () => {
    flowBlocks.push(0);
  };
  const flowSeparator = (close: boolean) => {
    flowBlockLevels -= (close ? flowBlocks.pop() : flowBlocks[flowBlocks.length - 1]) ?? 0;
    if (!close && flowBlocks.length > 0) flowBlocks[flowBlocks.length - 1] = 0;
  };
  const flowReset = () => {
    flowBlocks.length = 0;
    flowBlockLevels = 0;
  };
  const popAbove = (col: number) => {
    while ((columns[columns.length - 1] ?? -1) > col) {
      columns.pop();
      blockLevels -= weights.pop() ?? 0;
    }
  };

  // Column of a position: the start of its line, found by a scan that only moves forward.
  let colScan = 0;
  let colLineStart = 0;
  const column = (p: number) => {
    for (; colScan < p; colScan++) if (src.charCodeAt(colScan) === 10) colLineStart = colScan + 1;
    return p - colLineStart;
  };

  // The first newline at or after `from` (len if none); `from` never decreases, so this is linear.
  let nlFrom = -1;
  let nlAt = -1;
  const newlineFrom = (from: number) => {
    if (from < nlFrom || nlAt < from) {
      const i = src.indexOf("\n", from);
      nlAt = i === -1 ? len : i;
    }
    nlFrom = from;
    return nlAt;
  };
  // End (exclusive) of the current line's content, without a "\r" before its "\n".
  const lineEnd = () => {
    const nl = newlineFrom(pos);
    if (nl === len) return len;
    return src.charCodeAt(nl - 1) === CR && nl - 1 >= pos ? nl - 1 : nl;
  };
  const at = (lineStop: number, n: number) => (pos + n < lineStop ? src.charCodeAt(pos + n) : Number.NaN);

  const pushSpaces = (allowTabs: boolean) => {
    const start = pos;
    while (src.charCodeAt(pos) === SPACE || (allowTabs && src.charCodeAt(pos) === TAB)) pos++;
    return pos - start;
  };
  const pushNewline = () => {
    if (src.charCodeAt(pos) === LF) {
      pos += 1;
      return 1;
    }
    if (src.charCodeAt(pos) === CR && src.charCodeAt(pos + 1) === LF) {
      pos += 2;
      return 2;
    }
    return 0;
  };
  const pushTo = (i: number) => {
    const n = Math.max(0, Math.min(i, len) - pos);
    pos += n;
    return n;
  };
  const pushUntil = (stop: (c: number) => boolean) => {
    let i = pos;
    while (!stop(src.charCodeAt(i))) i++;
    return pushTo(i);
  };
  const pushTag = () => {
    if (src.charCodeAt(pos + 1) === 60) {
      let i = pos + 2;
      while (!isEmpty(src.charCodeAt(i)) && src.charCodeAt(i) !== 62) i++;
      return pushTo(src.charCodeAt(i) === 62 ? i + 1 : i);
    }
    let i = pos + 1;
    for (;;) {
      const ch = src.charCodeAt(i);
      if (is(ch, TAG_CHAR)) i++;
      else if (ch === 37 && is(src.charCodeAt(i + 1), HEX_DIGIT) && is(src.charCodeAt(i + 2), HEX_DIGIT)) i += 3;
      else break;
    }
    return pushTo(i);
  };
  // Tags, anchors and `-`/`?`/`:` indicators before a node. In block context an indicator may open a
  // collection where the node after it starts.
  const pushIndicators = () => {
    let n = 0;
    for (;;) {
      const ch = src.charCodeAt(pos);
      if (ch === 33) {
        n += pushTag();
        n += pushSpaces(true);
      } else if (ch === 38) {
        n += pushUntil(isNotAnchorChar);
        n += pushSpaces(true);
      } else if (ch === 45 || ch === 63 || ch === 58) {
        const inFlow = flowLevel > 0;
        const ch1 = src.charCodeAt(pos + 1);
        if (!(isEmpty(ch1) || (inFlow && is(ch1, FLOW)))) break;
        if (!inFlow) indentNext = indentValue + 1;
        else if (flowKey) flowKey = false;
        pos += 1;
        n += 1 + pushSpaces(true);
        if (inFlow) flowIndicator();
        else {
          open(column(pos));
          lineIndicator();
        }
        if (note()) return -1;
      } else break;
    }
    return n;
  };
  const continueScalar = (offset: number) => {
    let ch = src.charCodeAt(offset);
    if (indentNext > 0) {
      let indent = 0;
      while (ch === SPACE) ch = src.charCodeAt(++indent + offset);
      if (ch === CR && src.charCodeAt(indent + offset + 1) === LF) return offset + indent + 1;
      return ch === LF || indent >= indentNext ? offset + indent : -1;
    }
    if (ch === 45 || ch === 46) {
      const dt = src.substring(offset, offset + 3);
      if ((dt === "---" || dt === "...") && isEmpty(src.charCodeAt(offset + 3))) return -1;
    }
    return offset;
  };

  const lineStart = (): State => {
    const ch = src.charCodeAt(pos);
    if (ch === 45 || ch === 46) {
      const s = src.substring(pos, pos + 3);
      if ((s === "---" || s === "...") && isEmpty(src.charCodeAt(pos + 3))) {
        pos += 3;
        indentValue = 0;
        indentNext = 0;
        lineIndicators = 0;
        lineEntry = -1;
        return s === "---" ? "doc" : "stream";
      }
    }
    indentValue = pushSpaces(false);
    if (indentNext > indentValue && !isEmpty(src.charCodeAt(pos + 1))) indentNext = indentValue;
    // A line of the block structure: deeper columns close, this one opens (or continues).
    lineIndicators = 0;
    lineEntry = -1;
    const first = src.charCodeAt(pos);
    if (first === TAB) {
      let i = pos;
      while (src.charCodeAt(i) === TAB || src.charCodeAt(i) === SPACE) i++;
      if (!isEmpty(src.charCodeAt(i)) && src.charCodeAt(i) !== 35) {
        open(column(i));
        lineEntry = columns.length - 1;
      }
    } else if (!isEmpty(first) && first !== 35) {
      popAbove(indentValue);
      const top = columns.length - 1;
      const weight = weights[top] ?? 0;
      if (top >= 0 && columns[top] === indentValue) {
        if (first === 45 && isEmpty(src.charCodeAt(pos + 1)) && weight < 2) {
          blockLevels += 2 - weight;
          weights[top] = 2;
        }
      } else open(column(pos));
      lineEntry = columns.length - 1;
    }
    if (note()) return "end";
    return blockStart();
  };

  const blockStart = (): State => {
    const ch0 = src.charCodeAt(pos);
    const ch1 = src.charCodeAt(pos + 1);
    if ((ch0 === 45 || ch0 === 63 || ch0 === 58) && isEmpty(ch1)) {
      pos += 1;
      const n = 1 + pushSpaces(true);
      indentNext = indentValue + 1;
      indentValue += n;
      open(column(pos));
      if (ch0 === 58) lineIndicator();
      return note() ? "end" : "block-start";
    }
    return "doc";
  };

  const stream = (): State => {
    let stop = lineEnd();
    if (src.charCodeAt(pos) === 65279) {
      pos += 1;
      // The parser counts indents from after a byte order mark.
      if (column(pos) === 1) colLineStart = pos;
      stop = lineEnd();
    }
    if (src.charCodeAt(pos) === 37 || atLineEnd()) {
      pos = stop;
      pushNewline();
      return "stream";
    }
    return lineStart();
  };
  const atLineEnd = () => {
    let i = pos;
    while (src.charCodeAt(i) === SPACE || src.charCodeAt(i) === TAB) i++;
    const ch = src.charCodeAt(i);
    if (Number.isNaN(ch) || ch === 35 || ch === LF) return true;
    return ch === CR && src.charCodeAt(i + 1) === LF;
  };

  const doc = (): State => {
    pushSpaces(true);
    const stop = lineEnd();
    const n = pushIndicators();
    if (n < 0) return "end";
    const ch = pos < stop ? src.charCodeAt(pos) : -1;
    switch (ch) {
      case 35:
        pos = stop;
        pushNewline();
        return lineStart();
      case -1:
        pushNewline();
        return lineStart();
      case 123:
      case 91:
        pos += 1;
        flowKey = false;
        flowLevel = 1;
        flowReset();
        flowEnter();
        return note() ? "end" : "flow";
      case 125:
      case 93:
        pos += 1;
        return "doc";
      case 42:
        pushUntil(isNotAnchorChar);
        return "doc";
      case 34:
      case 39:
        return quoted();
      case 124:
      case 62:
        blockScalarHeader();
        pushSpaces(true);
        if (stop - pos === 1) {
          const rest = src.charCodeAt(pos);
          // What is open now stays open inside it, as far as this count knows.
          const now = blockLevels + flowBlockLevels + stray;
          if (rest === 91 || rest === 123) stray = now + 2;
          else if (rest === 45 || rest === 63 || rest === 58) stray = now + 1;
        }
        pos = Math.max(pos, stop);
        pushNewline();
        return blockScalar();
      default:
        return plain();
    }
  };

  const flow = (): State => {
    let indent = -1;
    let nl: number;
    let sp: number;
    do {
      nl = pushNewline();
      if (nl > 0) {
        sp = pushSpaces(false);
        indentValue = indent = sp;
      } else sp = 0;
      sp += pushSpaces(true);
    } while (nl + sp > 0);
    const stop = lineEnd();
    const c0 = at(stop, 0);
    if (
      (indent !== -1 && indent < indentNext && c0 !== 35) ||
      (indent === 0 && (src.startsWith("---", pos) || src.startsWith("...", pos)) && isEmpty(at(stop, 3)))
    ) {
      // An unindent ends every open flow collection (an error the parser recovers from).
      const atFlowEndMarker = indent === indentNext - 1 && flowLevel === 1 && (c0 === 93 || c0 === 125);
      if (!atFlowEndMarker) {
        flowLevel = 0;
        flowReset();
        return lineStart();
      }
    }
    while (src.charCodeAt(pos) === 44 && pos < stop) {
      flowSeparator(false);
      pos += 1;
      pushSpaces(true);
      flowKey = false;
    }
    if (pushIndicators() < 0) return "end";
    const ch = pos < stop ? src.charCodeAt(pos) : -1;
    switch (ch) {
      case -1:
        return "flow";
      case 35:
        pos = stop;
        return "flow";
      case 123:
      case 91:
        pos += 1;
        flowKey = false;
        flowLevel += 1;
        flowEnter();
        return note() ? "end" : "flow";
      case 125:
      case 93:
        pos += 1;
        flowKey = true;
        flowLevel -= 1;
        flowSeparator(true);
        return flowLevel ? "flow" : "doc";
      case 42:
        pushUntil(isNotAnchorChar);
        return "flow";
      case 34:
      case 39:
        flowKey = true;
        return quoted();
      case 58: {
        const next = src.charCodeAt(pos + 1);
        if (flowKey || isEmpty(next) || next === 44) {
          flowKey = false;
          pos += 1;
          pushSpaces(true);
          flowIndicator();
          return note() ? "end" : "flow";
        }
        flowKey = false;
        return plain();
      }
      default:
        flowKey = false;
        return plain();
    }
  };

  const quoted = (): State => {
    const quote = src.charCodeAt(pos) === 39 ? "'" : '"';
    let end = src.indexOf(quote, pos + 1);
    if (quote === "'") {
      while (end !== -1 && src.charCodeAt(end + 1) === 39) end = src.indexOf("'", end + 2);
    } else {
      while (end !== -1) {
        let n = 0;
        while (src.charCodeAt(end - 1 - n) === 92) n += 1;
        if (n % 2 === 0) break;
        end = src.indexOf('"', end + 1);
      }
    }
    if (end === -1) end = len;
    else {
      // A line less indented than the scalar's context ends it there (an error, recovered from).
      const before = (from: number) => {
        const i = newlineFrom(from);
        return i < end ? i : -1;
      };
      let nl = before(pos);
      while (nl !== -1) {
        const cs = continueScalar(nl + 1);
        if (cs === -1) break;
        nl = before(cs);
      }
      if (nl !== -1) end = nl - (src.charCodeAt(nl - 1) === CR ? 2 : 1);
    }
    pushTo(end + 1);
    return flowLevel ? "flow" : "doc";
  };

  const blockScalarHeader = () => {
    blockScalarIndent = -1;
    blockScalarKeep = false;
    let i = pos;
    for (;;) {
      const ch = src.charCodeAt(++i);
      if (ch === 43) blockScalarKeep = true;
      else if (ch > 48 && ch <= 57) blockScalarIndent = ch - 49;
      else if (ch !== 45) break;
    }
    pushUntil((ch) => isEmpty(ch) || ch === 35);
  };

  const blockScalar = (): State => {
    let nl = pos - 1;
    let indent = 0;
    let i = pos;
    for (; i < len; i++) {
      const ch = src.charCodeAt(i);
      if (ch === SPACE) indent += 1;
      else if (ch === LF) {
        nl = i;
        indent = 0;
      } else if (ch === CR && src.charCodeAt(i + 1) === LF) {
        // the "\n" comes next
      } else break;
    }
    if (indent >= indentNext) {
      if (blockScalarIndent === -1) indentNext = indent;
      else indentNext = blockScalarIndent + (indentNext === 0 ? 1 : indentNext);
      do {
        const cs = continueScalar(nl + 1);
        if (cs === -1) break;
        nl = src.indexOf("\n", cs);
      } while (nl !== -1);
      if (nl === -1) nl = len;
    }
    // Trailing lines that are not more indented are not part of it (as the lexer decides).
    i = nl + 1;
    let ch = src.charCodeAt(i);
    while (ch === SPACE) ch = src.charCodeAt(++i);
    if (ch === TAB) {
      while (ch === TAB || ch === SPACE || ch === CR || ch === LF) ch = src.charCodeAt(++i);
      nl = i - 1;
    } else if (!blockScalarKeep) {
      for (;;) {
        let j = nl - 1;
        let c = src.charCodeAt(j);
        if (c === CR) c = src.charCodeAt(--j);
        const lastChar = j;
        while (c === SPACE) c = src.charCodeAt(--j);
        if (c === LF && j >= pos && j + 1 + indent > lastChar) nl = j;
        else break;
      }
    }
    pushTo(nl + 1);
    return lineStart();
  };

  const plain = (): State => {
    const inFlow = flowLevel > 0;
    let end = pos - 1;
    let i = pos - 1;
    for (;;) {
      let ch = src.charCodeAt(++i);
      if (Number.isNaN(ch)) break;
      if (ch === 58) {
        const next = src.charCodeAt(i + 1);
        if (isEmpty(next) || (inFlow && is(next, FLOW))) break;
        end = i;
      } else if (ch === SPACE || ch === LF || ch === CR || ch === TAB) {
        let next = src.charCodeAt(i + 1);
        if (ch === CR) {
          if (next === LF) {
            i += 1;
            ch = LF;
            next = src.charCodeAt(i + 1);
          } else end = i;
        }
        if (next === 35 || (inFlow && is(next, FLOW))) break;
        if (ch === LF) {
          const cs = continueScalar(i + 1);
          if (cs === -1) break;
          i = Math.max(i, cs - 2);
        }
      } else {
        if (inFlow && is(ch, FLOW)) break;
        end = i;
      }
    }
    pushTo(end + 1);
    return inFlow ? "flow" : "doc";
  };

  let state: State = "stream";
  while (state !== "end" && pos < len) {
    switch (state) {
      case "stream":
        state = stream();
        break;
      case "line-start":
        state = lineStart();
        break;
      case "block-start":
        state = blockStart();
        break;
      case "doc":
        state = doc();
        break;
      case "flow":
        state = flow();
        break;
      default:
        // quoted, block-scalar and plain are entered directly by the states above
        state = "end";
    }
  }
  return max;
}
