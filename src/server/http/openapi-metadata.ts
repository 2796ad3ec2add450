/**
 * What zod's JSON Schema converter reads as a schema's metadata when a route's schemas go into the
 * document. fastify-type-provider-zod reads a route's schemas with the one registry it is given,
 * for names and metadata alike, so a registry of names only would drop every `.meta()` annotation
 * (formats, patterns, if/then rules, descriptions: zod keeps them in its global registry). This
 * view answers both: the annotations from the global registry, the name (`id`, which makes a
 * schema a `$ref`) only from `names`. Without `names`, nothing is named, so a parameter's schema
 * stays inline (@fastify/swagger reads parameters from the properties, which a `$ref` would hide).
 */
import { z } from "zod";

type Named = { id: string };

class DocumentMetadata extends z.core.$ZodRegistry<{ id?: string }> {
  constructor(private readonly names?: z.core.$ZodRegistry<Named>) {
    super();
  }

  override get<S extends z.core.$ZodType>(schema: S) {
    // A global `.meta({ id })` would name a schema for the document; names come from `names` alone.
    const { id: _globalId, ...annotations } = z.globalRegistry.get(schema) ?? {};
    const id = this.names?.get(schema)?.id;
    const meta = id === undefined ? annotations : { ...annotations, id };
    return (Object.keys(meta).length > 0 ? meta : undefined) as ReturnType<z.core.$ZodRegistry<{ id?: string }>["get"]>;
  }

  override has(schema: z.core.$ZodType): boolean {
    return this.get(schema) !== undefined;
  }
}

/** The global registry's annotations, with the names of `names` (none when it is not given). */
export const documentMetadata = (names?: z.core.$ZodRegistry<Named>) => new DocumentMetadata(names);
