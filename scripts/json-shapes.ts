// JSON texts of a given size in the shapes whose JSON.parse takes the most heap per byte of text, and in
// realistic shapes, for scripts/parse-cost.ts and test/poll/parse-cost.test.ts. Each text is about
// `size` bytes (a little over for the realistic ones).
import { readFileSync } from "node:fs";
import { leanTargetsAnswer, targetsAnswer, tsdbAnswer } from "./bench/generate.js";

/** `item` repeated, comma separated, between `open` and `close`. */
const repeat = (open: string, item: string, close: string, size: number) => {
  const n = Math.max(1, Math.floor((size - open.length - close.length) / (item.length + 1)));
  return `${open}${`${item},`.repeat(n - 1)}${item}${close}`;
};

/** `make(0)`, `make(1)`, … comma separated between `open` and `close`, up to `size` bytes. */
const list = (open: string, make: (i: number) => string, close: string, size: number) => {
  const parts: string[] = [];
  let length = open.length + close.length;
  for (let i = 0; length < size; i++) {
    const part = make(i);
    parts.push(part);
    length += part.length + 1;
  }
  return `${open}${parts.join(",")}${close}`;
};

/** Short distinct names: 0-9, a-z, A-Z digits. */
const name = (i: number) => {
  const digits = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  let s = "";
  do {
    s = digits[i % 62] + s;
    i = Math.floor(i / 62);
  } while (i > 0);
  return s;
};
const range = <T>(n: number, f: (i: number) => T) => Array.from({ length: n }, (_, i) => f(i));
const object = (keys: string[], value = "0") => `{${keys.map((k) => `"${k}":${value}`).join(",")}}`;

/** Texts built to take the most heap (or the least) per byte in one way each. */
export const HOSTILE_SHAPES: Record<string, (size: number) => string> = {
  "empty arrays [[],…]": (n) => repeat('{"x":[', "[]", "]}", n),
  "empty objects [{},…]": (n) => repeat("[", "{}", "]", n),
  "one-element arrays [[0],…]": (n) => repeat("[", "[0]", "]", n),
  "two-element arrays [[0,0],…]": (n) => repeat("[", "[0,0]", "]", n),
  "nested arrays [[[…]]]": (n) => `${"[".repeat(Math.floor(n / 2))}${"]".repeat(Math.floor(n / 2))}`,
  "nested objects {a:{a:…}}": (n) => {
    const depth = Math.floor((n - 1) / 6);
    return `${'{"a":'.repeat(depth)}0${"}".repeat(depth)}`;
  },
  "nested objects, distinct keys": (n) => {
    const depth = Math.floor(n / 9);
    return `${range(depth, (i) => `{"${name(i)}":`).join("")}0${"}".repeat(depth)}`;
  },
  "many keys {k:{},…}": (n) => list("{", (i) => `"${name(i)}":{}`, "}", n),
  "many keys {k:0,…}": (n) => list("{", (i) => `"${name(i)}":0`, "}", n),
  "many wide keys {Āk:0,…}": (n) => list("{", (i) => `"\u0100${name(i)}":0`, "}", n),
  "index keys {0:0,1:0,…}": (n) => list("{", (i) => `"${i}":0`, "}", n),
  "objects, one distinct key each": (n) => list("[", (i) => `{"${name(i)}":0}`, "]", n),
  "objects, 20 distinct keys each": (n) => list("[", (i) => object(range(20, (j) => `${name(i)}_${j}`)), "]", n),
  "objects, keys of 10 in any order": (n) => {
    let seed = 7;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    const keys = "abcdefghij".split("");
    const pick = () => keys.toSorted(() => random() - 0.5).slice(0, 1 + Math.floor(random() * 10));
    return list("[", () => object(pick()), "]", n);
  },
  "objects, one key {a:0}": (n) => repeat("[", '{"a":0}', "]", n),
  "objects, 100 keys": (n) => repeat("[", object(range(100, (j) => `k${j}`)), "]", n),
  "objects, 130 keys (hash tables)": (n) => repeat("[", object(range(130, (j) => `k${j}`)), "]", n),
  "objects, 3000 keys": (n) => repeat("[", object(range(3000, (j) => `k${j}`)), "]", n),
  "objects, 1600 first keys then one shape": (n) => {
    const head = range(1600, (i) => `{"f${i}":0}`).join(",");
    return repeat(`[${head},`, '{"zz":0}', "]", n);
  },
  "objects, index key {34:0}": (n) => repeat("[", '{"34":0}', "]", n),
  "objects, large index key": (n) => list("[", (i) => `{"${i * 997}":0}`, "]", n),
  "objects, 30 index keys and a far one": (n) =>
    repeat("[", `{${range(30, (j) => `"${j}":0`).join(",")},"480":0}`, "]", n),
  "objects, values changing kind": (n) =>
    list("[", (i) => `{"${name(Math.floor(i / 4))}":${["1", "1.5", '""', "[]"][i % 4]}}`, "]", n),
  "objects, fields widening along 100 keys": (n) => {
    const keys = range(100, (j) => `k${j}`);
    let i = 0;
    return list(
      "[",
      () => {
        const at = i++ % 100;
        return `{${keys.map((k, m) => `"${k}":${m === at ? "1.5" : m < at ? '"s"' : "1"}`).join(",")}}`;
      },
      "]",
      n,
    );
  },
  "objects, __proto__ key": (n) => repeat("[", '{"__proto__":0}', "]", n),
  "small integers [1,…]": (n) => repeat("[", "1", "]", n),
  "integers [0,1,2,…]": (n) => list("[", (i) => `${i}`, "]", n),
  "fractions [1.5,…]": (n) => repeat("[", "1.5", "]", n),
  "boxed fractions [[],1.5,…]": (n) => repeat("[[],", "1.5", "]", n),
  "boxed -0 [[],-0,…]": (n) => repeat("[[],", "-0", "]", n),
  "boxed large integers [[],3e9,…]": (n) => repeat("[[],", "3e9", "]", n),
  'strings ["","a",…]': (n) => repeat("[", '"","a"', "]", n),
  "distinct short strings": (n) => list("[", (i) => `"${name(i)}"`, "]", n),
  'wide strings ["Ā",…]': (n) => repeat("[", '"\u0100"', "]", n),
  "distinct wide strings": (n) => list("[", (i) => `"\u0100${name(i)}"`, "]", n),
  "distinct strings with a \\u0100 escape": (n) => list("[", (i) => `"\\u0100${name(i)}"`, "]", n),
  "strings of escapes": (n) => repeat("[", '"\\n\\t"', "]", n),
  "strings of 1 KB": (n) => list("[", (i) => `"${name(i)}${"x".repeat(1000)}"`, "]", n),
  "white space": (n) => `[${" ".repeat(n - 2)}]`,
};

const fixture = (path: string) =>
  JSON.stringify(JSON.parse(readFileSync(new URL(`../test/fixtures/upstream/${path}`, import.meta.url), "utf8")));

/** Answers as the upstreams give them (the benchmark's generator, recorded answers repeated). */
export const REALISTIC_SHAPES: Record<string, (size: number) => string> = {
  "targets answer": (n) => targetsAnswer(Math.ceil(n / 780)),
  "lean targets answer": (n) => leanTargetsAnswer(Math.ceil(n / 195)),
  "tsdb answer": (n) => tsdbAnswer(Math.ceil(n / 170)),
  "recorded targets answers": (n) => repeat("[", fixture("prometheus-targets.json"), "]", n),
  "recorded tsdb answers": (n) => repeat("[", fixture("prometheus-tsdb.json"), "]", n),
  "recorded Alertmanager statuses": (n) => repeat("[", fixture("alertmanager-status-clustered.json"), "]", n),
};
