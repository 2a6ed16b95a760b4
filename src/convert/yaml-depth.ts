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

const FLOW_INDICATORS = new Set([",", "[", "]", "{", "}"]);
const INVALID_ANCHOR = new Set([" ", ",", "[", "]", "{", "}", "\n", "\r", "\t"]);
const HEX = new Set("0123456789ABCDEFabcdef");
const TAG = new Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-#;/?:@&=+$_.!~*'()");

const isEmpty = (ch: string | undefined) => ch === undefined || ch === " " || ch === "\n" || ch === "\r" || ch === "\t";
const isNotAnchorChar = (ch: string | undefined) => ch === undefined || INVALID_ANCHOR.has(ch);

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
    return src[nl - 1] === "\r" && nl - 1 >= pos ? nl - 1 : nl;
  };
  const at = (lineStop: number, n: number) => (pos + n < lineStop ? src[pos + n] : undefined);

  const pushSpaces = (allowTabs: boolean) => {
    const start = pos;
    while (src[pos] === " " || (allowTabs && src[pos] === "\t")) pos++;
    return pos - start;
  };
  const pushNewline = () => {
    if (src[pos] === "\n") {
      pos += 1;
      return 1;
    }
    if (src[pos] === "\r" && src[pos + 1] === "\n") {
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
  const pushUntil = (stop: (ch: string | undefined) => boolean) => {
    let i = pos;
    while (!stop(src[i])) i++;
    return pushTo(i);
  };
  const pushTag = () => {
    if (src[pos + 1] === "<") {
      let i = pos + 2;
      while (!isEmpty(src[i]) && src[i] !== ">") i++;
      return pushTo(src[i] === ">" ? i + 1 : i);
    }
    let i = pos + 1;
    for (;;) {
      const ch = src[i];
      if (ch === undefined) break;
      if (TAG.has(ch)) i++;
      else if (ch === "%" && HEX.has(src[i + 1] ?? "") && HEX.has(src[i + 2] ?? "")) i += 3;
      else break;
    }
    return pushTo(i);
  };
  // Tags, anchors and `-`/`?`/`:` indicators before a node. In block context an indicator may open a
  // collection where the node after it starts.
  const pushIndicators = () => {
    let n = 0;
    for (;;) {
      const ch = src[pos];
      if (ch === "!") {
        n += pushTag();
        n += pushSpaces(true);
      } else if (ch === "&") {
        n += pushUntil(isNotAnchorChar);
        n += pushSpaces(true);
      } else if (ch === "-" || ch === "?" || ch === ":") {
        const inFlow = flowLevel > 0;
        const ch1 = src[pos + 1];
        if (!(isEmpty(ch1) || (inFlow && FLOW_INDICATORS.has(ch1 ?? "")))) break;
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
    let ch = src[offset];
    if (indentNext > 0) {
      let indent = 0;
      while (ch === " ") ch = src[++indent + offset];
      if (ch === "\r" && src[indent + offset + 1] === "\n") return offset + indent + 1;
      return ch === "\n" || indent >= indentNext ? offset + indent : -1;
    }
    if (ch === "-" || ch === ".") {
      const dt = src.substring(offset, offset + 3);
      if ((dt === "---" || dt === "...") && isEmpty(src[offset + 3])) return -1;
    }
    return offset;
  };

  const lineStart = (): State => {
    const ch = src[pos];
    if (ch === "-" || ch === ".") {
      const s = src.substring(pos, pos + 3);
      if ((s === "---" || s === "...") && isEmpty(src[pos + 3])) {
        pos += 3;
        indentValue = 0;
        indentNext = 0;
        lineIndicators = 0;
        lineEntry = -1;
        return s === "---" ? "doc" : "stream";
      }
    }
    indentValue = pushSpaces(false);
    if (indentNext > indentValue && !isEmpty(src[pos + 1])) indentNext = indentValue;
    // A line of the block structure: deeper columns close, this one opens (or continues).
    lineIndicators = 0;
    lineEntry = -1;
    const first = src[pos];
    if (first === "\t") {
      let i = pos;
      while (src[i] === "\t" || src[i] === " ") i++;
      if (!isEmpty(src[i]) && src[i] !== "#") {
        open(column(i));
        lineEntry = columns.length - 1;
      }
    } else if (!isEmpty(first) && first !== "#") {
      popAbove(indentValue);
      const top = columns.length - 1;
      const weight = weights[top] ?? 0;
      if (top >= 0 && columns[top] === indentValue) {
        if (first === "-" && isEmpty(src[pos + 1]) && weight < 2) {
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
    const ch0 = src[pos];
    const ch1 = src[pos + 1];
    if ((ch0 === "-" || ch0 === "?" || ch0 === ":") && isEmpty(ch1)) {
      pos += 1;
      const n = 1 + pushSpaces(true);
      indentNext = indentValue + 1;
      indentValue += n;
      open(column(pos));
      if (ch0 === ":") lineIndicator();
      return note() ? "end" : "block-start";
    }
    return "doc";
  };

  const stream = (): State => {
    let stop = lineEnd();
    if (src[pos] === "\uFEFF") {
      pos += 1;
      stop = lineEnd();
    }
    if (src[pos] === "%" || atLineEnd()) {
      pos = stop;
      pushNewline();
      return "stream";
    }
    return lineStart();
  };
  const atLineEnd = () => {
    let i = pos;
    while (src[i] === " " || src[i] === "\t") i++;
    const ch = src[i];
    if (ch === undefined || ch === "#" || ch === "\n") return true;
    return ch === "\r" && src[i + 1] === "\n";
  };

  const doc = (): State => {
    pushSpaces(true);
    const stop = lineEnd();
    const n = pushIndicators();
    if (n < 0) return "end";
    const ch = pos < stop ? src[pos] : undefined;
    switch (ch) {
      case "#":
        pos = stop;
        pushNewline();
        return lineStart();
      case undefined:
        pushNewline();
        return lineStart();
      case "{":
      case "[":
        pos += 1;
        flowKey = false;
        flowLevel = 1;
        flowReset();
        flowEnter();
        return note() ? "end" : "flow";
      case "}":
      case "]":
        pos += 1;
        return "doc";
      case "*":
        pushUntil(isNotAnchorChar);
        return "doc";
      case '"':
      case "'":
        return quoted();
      case "|":
      case ">":
        blockScalarHeader();
        pushSpaces(true);
        if (stop - pos === 1) {
          const rest = src[pos];
          // What is open now stays open inside it, as far as this count knows.
          const now = blockLevels + flowBlockLevels + stray;
          if (rest === "[" || rest === "{") stray = now + 2;
          else if (rest === "-" || rest === "?" || rest === ":") stray = now + 1;
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
      (indent !== -1 && indent < indentNext && c0 !== "#") ||
      (indent === 0 && (src.startsWith("---", pos) || src.startsWith("...", pos)) && isEmpty(at(stop, 3)))
    ) {
      // An unindent ends every open flow collection (an error the parser recovers from).
      const atFlowEndMarker = indent === indentNext - 1 && flowLevel === 1 && (c0 === "]" || c0 === "}");
      if (!atFlowEndMarker) {
        flowLevel = 0;
        flowReset();
        return lineStart();
      }
    }
    while (src[pos] === "," && pos < stop) {
      flowSeparator(false);
      pos += 1;
      pushSpaces(true);
      flowKey = false;
    }
    if (pushIndicators() < 0) return "end";
    const ch = pos < stop ? src[pos] : undefined;
    switch (ch) {
      case undefined:
        return "flow";
      case "#":
        pos = stop;
        return "flow";
      case "{":
      case "[":
        pos += 1;
        flowKey = false;
        flowLevel += 1;
        flowEnter();
        return note() ? "end" : "flow";
      case "}":
      case "]":
        pos += 1;
        flowKey = true;
        flowLevel -= 1;
        flowSeparator(true);
        return flowLevel ? "flow" : "doc";
      case "*":
        pushUntil(isNotAnchorChar);
        return "flow";
      case '"':
      case "'":
        flowKey = true;
        return quoted();
      case ":": {
        const next = src[pos + 1];
        if (flowKey || isEmpty(next) || next === ",") {
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
    const quote = src[pos] === "'" ? "'" : '"';
    let end = src.indexOf(quote, pos + 1);
    if (quote === "'") {
      while (end !== -1 && src[end + 1] === "'") end = src.indexOf("'", end + 2);
    } else {
      while (end !== -1) {
        let n = 0;
        while (src[end - 1 - n] === "\\") n += 1;
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
      if (nl !== -1) end = nl - (src[nl - 1] === "\r" ? 2 : 1);
    }
    pushTo(end + 1);
    return flowLevel ? "flow" : "doc";
  };

  const blockScalarHeader = () => {
    blockScalarIndent = -1;
    blockScalarKeep = false;
    let i = pos;
    for (;;) {
      const ch = src[++i];
      if (ch === "+") blockScalarKeep = true;
      else if (ch !== undefined && ch > "0" && ch <= "9") blockScalarIndent = Number(ch) - 1;
      else if (ch !== "-") break;
    }
    pushUntil((ch) => isEmpty(ch) || ch === "#");
  };

  const blockScalar = (): State => {
    let nl = pos - 1;
    let indent = 0;
    let i = pos;
    for (; i < len; i++) {
      const ch = src[i];
      if (ch === " ") indent += 1;
      else if (ch === "\n") {
        nl = i;
        indent = 0;
      } else if (ch === "\r" && src[i + 1] === "\n") {
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
    let ch = src[i];
    while (ch === " ") ch = src[++i];
    if (ch === "\t") {
      while (ch === "\t" || ch === " " || ch === "\r" || ch === "\n") ch = src[++i];
      nl = i - 1;
    } else if (!blockScalarKeep) {
      for (;;) {
        let j = nl - 1;
        let c = src[j];
        if (c === "\r") c = src[--j];
        const lastChar = j;
        while (c === " ") c = src[--j];
        if (c === "\n" && j >= pos && j + 1 + indent > lastChar) nl = j;
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
      let ch = src[++i];
      if (ch === undefined) break;
      if (ch === ":") {
        const next = src[i + 1];
        if (isEmpty(next) || (inFlow && FLOW_INDICATORS.has(next ?? ""))) break;
        end = i;
      } else if (ch === " " || ch === "\n" || ch === "\r" || ch === "\t") {
        let next = src[i + 1];
        if (ch === "\r") {
          if (next === "\n") {
            i += 1;
            ch = "\n";
            next = src[i + 1];
          } else end = i;
        }
        if (next === "#" || (inFlow && FLOW_INDICATORS.has(next ?? ""))) break;
        if (ch === "\n") {
          const cs = continueScalar(i + 1);
          if (cs === -1) break;
          i = Math.max(i, cs - 2);
        }
      } else {
        if (inFlow && FLOW_INDICATORS.has(ch)) break;
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
