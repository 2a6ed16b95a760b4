import type { z } from "zod";

// The field names a schema declares, so that a mismatch can be described by the schema's words only:
// a key the answer chose (of a record, such as droppedTargetCounts) is never quoted back.

interface Def {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  innerType?: z.ZodType;
  in?: z.ZodType;
  out?: z.ZodType;
  valueType?: z.ZodType;
  options?: readonly z.ZodType[];
}

const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

const known = new WeakMap<z.ZodType, ReadonlySet<string>>();

/** Every object key declared anywhere in the schema (zod 4's definitions, walked once per schema). */
export function schemaFields(schema: z.ZodType): ReadonlySet<string> {
  const fields = known.get(schema) ?? collect(schema, new Set());
  known.set(schema, fields);
  return fields;
}

function collect(schema: z.ZodType, into: Set<string>): Set<string> {
  const def = defOf(schema);
  if (def.shape) {
    for (const [key, field] of Object.entries(def.shape)) {
      into.add(key);
      collect(field, into);
    }
  }
  const inner = [def.element, def.innerType, def.in, def.out, def.valueType, ...(def.options ?? [])];
  for (const s of inner) if (s && typeof s === "object" && "_zod" in s) collect(s, into);
  return into;
}
