// Reads generated targets answers through the streaming reader in small chunks, as the decoder thread
// does, often enough for V8 to optimise the scanner. Prints READING when the answers are built, so a
// caller tracing V8 (--trace-deopt) can tell the reader's lines from the generator's.
import { TargetsRounds } from "../../../scripts/bench/generate.js";
import { TargetsAnswerReader } from "../../../src/upstream/targets/answer-reader.js";

const rounds = new TargetsRounds(20_000);
const answers = [0, 1, 2, 3].map((r) => rounds.answer(r));
process.stdout.write("READING\n");
let targets = 0;
for (const answer of answers) {
  const reader = new TargetsAnswerReader(["job", "instance"], () => void targets++);
  // 4093: a prime, so chunks end at every kind of place in a target.
  for (let p = 0; p < answer.length; p += 4093) reader.write(answer.subarray(p, p + 4093));
  if (!reader.end()) throw new Error("the reader gave up");
}
process.stdout.write(`TARGETS ${targets}\n`);
