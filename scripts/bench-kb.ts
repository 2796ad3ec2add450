/**
 * `npm run bench:kb [-- --passages 100000] [--queries 200] [--pages 50] [--pg] [--vectors hashed|topics] [--ef 100,200,400] [--m 16 --ef-construction 128] [--keep]`: the knowledge
 * bases' retrieval and ingestion on the real database (`--pg`: a fresh database on the
 * PostgreSQL server of DATABASE_URL instead of the embedded PGlite).
 *
 * Seeds `--passages` passages (about 330 per document) of synthetic text with the stand-in's
 * vectors (hashed words, 512 dimensions: what the tests' embeddings server answers), then prints:
 *  - retrieval latency p50/p99 of the hybrid search (repo.searchPassages: HNSW + full text, fused
 *    by reciprocal rank, filtered by organisation and base), the question's embedding excluded,
 *    after 20 unmeasured searches;
 *  - recall@5 of the HNSW index against exact search (the same query with index scans off): strict
 *    (the exact five's own passages), with ties counted (a passage as near as the exact fifth is
 *    as right as it), recall@1, and how much farther the fifth found is than the exact fifth;
 *  - ingestion throughput: a generated PDF of `--pages` pages extracted, split and stored
 *    (embeddings API excluded), in pages per second.
 * Where the server has no pgvector, it says so and measures the full-text path only.
 *
 * `--ef` measures latency and recall at each of these `hnsw.ef_search` (default: the app's), recall
 * both as retrieval filters (organisation and base) and on the bare index (no filter: what the
 * filter costs). `--m` / `--ef-construction` build the index otherwise than the app does (to
 * compare); `--keep` leaves the PostgreSQL database in place (its name printed) for EXPLAIN.
 *
 * `--vectors hashed` (the default) gives each passage the stand-in's vector of its words: sparse
 * (a passage's ~100 words in 512 dimensions) and all near-equidistant, a hard case for any
 * approximate index and unlike a model's embeddings. `--vectors topics` gives dense vectors
 * clustered by document (a topic's direction plus noise; a question near its passage), closer to
 * how real embeddings of a company's documents spread.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir, cpus } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase } from "../src/server/db/client.ts";
import { knowledgeBases, knowledgeDocuments, organization } from "../src/server/db/schema.ts";
import { chunkSections } from "../src/server/modules/knowledge/chunk.ts";
import { extractDocument } from "../src/server/modules/knowledge/extract.ts";
import * as repo from "../src/server/modules/knowledge/knowledge.repo.ts";
import { EF_SEARCH } from "../src/server/modules/knowledge/knowledge.repo.ts";
import { vectorLiteral } from "../src/server/modules/knowledge/vector-literal.ts";
import { createVectorIndex, dropVectorIndex, EMBEDDING_DIMENSIONS, ensureVectorStore, vectorIndexFor } from "../src/server/modules/knowledge/vector-store.ts";
import { fakeEmbedding } from "../tests/fakes/fake-embeddings.ts";
import { createScratchDatabase, dropScratchDatabase } from "../tests/instances/scratch-database.ts";
import { makePdf } from "../tests/knowledge-files.ts";
import { seededRandom } from "../tests/seeded-random.ts";
import { markdownTable, positiveOption } from "./bench-process.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => positiveOption(args, name, fallback);
const PASSAGES = option("--passages", 100_000);
const QUERIES = option("--queries", 200);
const PAGES = option("--pages", 50);
const PER_DOCUMENT = 330;
const WARM_UP = 20;
const ON_PG = args.includes("--pg");
const TOPICS = args.includes("--vectors") && args[args.indexOf("--vectors") + 1] === "topics";
const EFS = args.includes("--ef") ? (args[args.indexOf("--ef") + 1] ?? "").split(",").map(Number).filter((n) => Number.isInteger(n) && n > 0) : [EF_SEARCH];
const INDEX_M = option("--m", 0);
const INDEX_EF_CONSTRUCTION = option("--ef-construction", 0);
const KEEP = ON_PG && args.includes("--keep");

// A vocabulary with a skewed (Zipf-like) use, so passages share common words and differ in rare ones.
const VOCABULARY = Array.from({ length: 5000 }, (_, i) => `w${i.toString(36)}${"abcdefghij"[i % 10]}`);
// (An LCG computed in doubles cycled after 10,466 draws here: every passage's words and vector
// noise were windows of one short sequence, and documents' topics repeated.)
const random = seededRandom(42);
const word = () => VOCABULARY[Math.floor(VOCABULARY.length * random() ** 2.5)]!;
const passageText = () => Array.from({ length: 120 }, word).join(" ");
const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const unit = (v: number[]) => {
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
};
/** `--vectors topics`: a direction near the given one (noise per dimension of `spread`). */
const near = (centre: readonly number[], spread: number) => unit(centre.map((x) => x + spread * gaussian()));
const topic = () => unit(Array.from({ length: EMBEDDING_DIMENSIONS }, gaussian));

const loadAtStart = loadavg()[0]!;
const dataDir = mkdtempSync(join(tmpdir(), "switchboard-bench-kb-"));
const pgAdmin = ON_PG ? process.env.DATABASE_URL : undefined;
if (ON_PG && !pgAdmin) throw new Error("--pg needs DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/postgres)");
const scratch = pgAdmin ? await createScratchDatabase("bench_kb", pgAdmin) : undefined;
const database = await openDatabase(scratch ? { kind: "postgres", url: scratch.url } : { kind: "pglite", dataDir: join(dataDir, "pglite") });
const { db } = database;
const log = (msg: string) => console.log(`[bench:kb] ${msg}`);

try {
  await database.migrate();
  const vectors = await ensureVectorStore(db, vectorIndexFor(database.kind), { warn: (_o, msg) => log(`warning: ${msg}`) });
  const orgId = `bench-${randomBytes(4).toString("hex")}`;
  await db.insert(organization).values({ id: orgId, name: "Bench", slug: orgId });
  const [base] = await db.insert(knowledgeBases).values({ organizationId: orgId, name: "Bench" }).returning();
  // A second organisation's base of the same size would double the seed; a small one shows the filter holds.
  const otherOrg = `${orgId}-other`;
  await db.insert(organization).values({ id: otherOrg, name: "Other", slug: otherOrg });

  // Seed: the index is built after the rows (as a re-index would), much faster than row by row.
  if (vectors) await dropVectorIndex(db);
  const seedStart = performance.now();
  const kept: string[] = [];
  const keptVectors: number[][] = [];
  for (let done = 0; done < PASSAGES; done += PER_DOCUMENT) {
    const count = Math.min(PER_DOCUMENT, PASSAGES - done);
    const [doc] = await db
      .insert(knowledgeDocuments)
      .values({ organizationId: orgId, knowledgeBaseId: base!.id, name: `Document ${done / PER_DOCUMENT + 1}`, source: "text", status: "processing" })
      .returning();
    const chunks = Array.from({ length: count }, (_, i) => ({ location: `page ${Math.floor(i / 3) + 1}`, content: passageText() }));
    const centre = TOPICS ? topic() : null;
    const vecs = vectors ? chunks.map((c) => (centre ? near(centre, 0.06) : fakeEmbedding(c.content, EMBEDDING_DIMENSIONS))) : null;
    if (kept.length < QUERIES) {
      kept.push(chunks[0]!.content);
      if (vecs) keptVectors.push(vecs[0]!);
    }
    // In bulk (a few statements a document): seeding is not what is measured.
    await repo.replaceChunks(db, doc!, chunks, vecs?.map(vectorLiteral) ?? null, { pageCount: null, fetchedAt: null }, () => 110);
    if ((done / PER_DOCUMENT) % 30 === 0) log(`seeded ${done + count} passages`);
  }
  const seedSeconds = (performance.now() - seedStart) / 1000;
  let indexSeconds = 0;
  if (vectors) {
    const indexStart = performance.now();
    await db.execute(sql`set maintenance_work_mem = '256MB'`).catch(() => undefined);
    await createVectorIndex(db, vectors, { m: INDEX_M || 16, efConstruction: INDEX_EF_CONSTRUCTION || 128 });
    indexSeconds = (performance.now() - indexStart) / 1000;
  }
  await db.execute(sql`analyze knowledge_chunks`);
  log(`seeded ${PASSAGES} passages in ${seedSeconds.toFixed(1)} s${vectors ? `, HNSW index built in ${indexSeconds.toFixed(1)} s` : ""}`);

  // Questions: a few words of a seeded passage each (the hardest case for words alone is not the point here).
  const questions = kept.map((text) => text.split(" ").slice(10, 18).join(" "));
  const questionVectors = questions.map((q, i) => (TOPICS ? near(keptVectors[i]!, 0.03) : fakeEmbedding(q, EMBEDDING_DIMENSIONS)));
  const latency = async (efSearch: number) => {
    // Unmeasured first: the first searches after the index build read its pages in (the first
    // setting measured was the slowest in every run, whichever it was).
    for (let i = 0; i < WARM_UP; i++) await repo.searchPassages(db, orgId, [base!.id], questions[i % questions.length]!, vectors ? { values: questionVectors[i % questions.length]!, index: vectors } : null, 5, efSearch);
    const timings: number[] = [];
    for (let i = 0; i < QUERIES; i++) {
      const q = questions[i % questions.length]!;
      const vec = vectors ? { values: questionVectors[i % questions.length]!, index: vectors } : null;
      const started = performance.now();
      await repo.searchPassages(db, orgId, [base!.id], q, vec, 5, efSearch);
      timings.push(performance.now() - started);
    }
    timings.sort((a, b) => a - b);
    const pct = (p: number) => timings[Math.min(timings.length - 1, Math.floor((p / 100) * timings.length))]!;
    return { p50: pct(50), p99: pct(99) };
  };

  // The true nearest five, by exact search (index scans off), with and without retrieval's filter.
  const sample = Math.min(100, questions.length);
  const exactFive = async (vector: number[], filtered: boolean) => {
    const literal = vectorLiteral(vector);
    const scope = filtered ? sql`organization_id = ${orgId} and knowledge_base_id = ${base!.id}::uuid` : sql`true`;
    const rows = await db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_indexscan = off`);
      return (await tx.execute(sql`select id, embedding <=> ${literal}::vector as distance from knowledge_chunks where ${scope} and embedding is not null order by embedding <=> ${literal}::vector, id limit 5`)) as unknown as { rows: { id: string; distance: number }[] };
    });
    return rows.rows.map((r) => ({ id: r.id, distance: Number(r.distance) }));
  };
  const exact = vectors ? { filtered: [] as Awaited<ReturnType<typeof exactFive>>[], bare: [] as Awaited<ReturnType<typeof exactFive>>[] } : null;
  if (exact) {
    for (let i = 0; i < sample; i++) {
      exact.filtered.push(await exactFive(questionVectors[i]!, true));
      exact.bare.push(await exactFive(questionVectors[i]!, false));
    }
  }
  /**
   * recall@5 of the five nearest of the candidates retrieval reads (its scan settings, ranked again
   * by distance), three ways: `strict`, the exact five's own passages found (a tie broken the other
   * way counts as a miss); `ties`, a passage found no farther than the exact fifth counts (it is as
   * near as the one it displaced); `top1`, the question's nearest passage found first or tied.
   * `fifthRatio`: the found fifth's distance over the exact fifth's, on average (how near the misses are).
   */
  const recallAt = async (efSearch: number, filtered: boolean) => {
    let strict = 0;
    let ties = 0;
    let top1 = 0;
    let ratio = 0;
    for (let i = 0; i < sample; i++) {
      const found = (await repo.candidateDistances(db, orgId, base!.id, { values: questionVectors[i]!, index: vectors! }, efSearch, filtered)).slice(0, 5);
      const truth = (filtered ? exact!.filtered : exact!.bare)[i]!;
      const fifth = truth.at(-1)?.distance ?? Number.POSITIVE_INFINITY;
      const ids = new Set(truth.map((t) => t.id));
      strict += found.filter((f) => ids.has(f.id)).length;
      ties += found.filter((f) => f.distance <= fifth + 1e-9).length;
      if (found[0] && truth[0] && found[0].distance <= truth[0].distance + 1e-9) top1++;
      ratio += (found.at(-1)?.distance ?? Number.POSITIVE_INFINITY) / fifth;
    }
    return { strict: strict / (sample * 5), ties: ties / (sample * 5), top1: top1 / sample, fifthRatio: ratio / sample };
  };
  type Recall = Awaited<ReturnType<typeof recallAt>>;
  const perEf: { efSearch: number; p50: number; p99: number; recall: Recall | null; recallBare: Recall | null }[] = [];
  const shown = (r: Recall | null) => (r ? `${r.strict.toFixed(3)} strict / ${r.ties.toFixed(3)} with ties / recall@1 ${r.top1.toFixed(2)} / fifth's distance ×${r.fifthRatio.toFixed(4)}` : "n/a");
  for (const efSearch of vectors ? EFS : [EF_SEARCH]) {
    const { p50, p99 } = await latency(efSearch);
    perEf.push({ efSearch, p50, p99, recall: exact ? await recallAt(efSearch, true) : null, recallBare: exact ? await recallAt(efSearch, false) : null });
    log(`ef_search ${efSearch}: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, recall@5 ${shown(perEf.at(-1)!.recall)} (bare index ${shown(perEf.at(-1)!.recallBare)}), load ${loadavg()[0]!.toFixed(1)}`);
  }

  // Ingestion: a generated PDF through extraction, splitting and the store (no embeddings API).
  const pdf = await makePdf(Array.from({ length: PAGES }, (_, p) => Array.from({ length: 30 }, (_, l) => `${p + 1}.${l + 1} ${Array.from({ length: 10 }, word).join(" ")}`)));
  const [pdfDoc] = await db.insert(knowledgeDocuments).values({ organizationId: otherOrg, knowledgeBaseId: base!.id, name: "bench.pdf", source: "upload", status: "processing" }).returning();
  const ingestStart = performance.now();
  const extracted = await extractDocument(pdf, "pdf");
  const chunks = chunkSections(extracted.sections);
  await repo.replaceChunks(db, pdfDoc!, chunks, vectors ? chunks.map((c) => vectorLiteral(fakeEmbedding(c.content, EMBEDDING_DIMENSIONS))) : null, { pageCount: extracted.pages, fetchedAt: null });
  const ingestSeconds = (performance.now() - ingestStart) / 1000;

  const kind = ON_PG ? `PostgreSQL server${vectors ? "" : " (no pgvector: full-text only)"}` : "embedded PGlite (pgvector)";
  console.log(`\nbench:kb — ${kind}, ${PASSAGES.toLocaleString("en-US")} passages in ${Math.ceil(PASSAGES / PER_DOCUMENT)} documents, ${cpus().length} cores, load average ${loadAtStart.toFixed(1)} at start, ${loadavg()[0]!.toFixed(1)} at the end\n`);
  console.log(
    markdownTable(
      ["figure", "value"],
      [
        ...perEf.flatMap((r) => {
          const at = vectors ? ` at ef_search ${r.efSearch}${r.efSearch === EF_SEARCH ? " (the app's)" : ""}` : "";
          return [
            [`retrieval p50 / p99 (excl. embeddings)${at}`, `${r.p50.toFixed(1)} / ${r.p99.toFixed(1)} ms`],
            [`recall@5, HNSW vs exact${at}, as retrieval filters`, r.recall === null ? "n/a (no pgvector)" : shown(r.recall)],
            [`recall@5, HNSW vs exact${at}, bare index`, r.recallBare === null ? "n/a (no pgvector)" : shown(r.recallBare)],
          ];
        }),
        ["search", vectors ? `hybrid (HNSW + full text, RRF); ${TOPICS ? "dense topic" : "hashed-word"} vectors; ${vectors}-precision index m ${INDEX_M || 16}, ef_construction ${INDEX_EF_CONSTRUCTION || 128}` : "full text only"],
        ["ingestion (PDF, excl. embeddings)", `${(PAGES / ingestSeconds).toFixed(1)} pages/s (${PAGES} pages, ${chunks.length} passages)`],
        ["seeding", `${seedSeconds.toFixed(1)} s${vectors ? `, index ${indexSeconds.toFixed(1)} s` : ""}`],
      ],
    ),
  );
} finally {
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (KEEP && scratch) log(`kept the database ${scratch.name} (drop it when done)`);
  else await dropScratchDatabase(scratch);
}
