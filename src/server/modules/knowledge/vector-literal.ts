/**
 * pgvector's text form of a vector. Nine significant digits give back each float32 exactly (the
 * column's own precision), in about half the characters of a double's shortest form: less to
 * build, send and parse for each passage stored.
 */
export const vectorLiteral = (v: ArrayLike<number>): string => `[${Array.from(v, (x) => x.toPrecision(9)).join(",")}]`;
