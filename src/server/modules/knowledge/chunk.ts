/**
 * Passages out of sections: paragraphs gathered up to about CHUNK_CHARS, never across a section
 * (a page or a heading), each after the first starting with the previous one's last sentences
 * (OVERLAP_CHARS), so an answer that straddles two paragraphs is whole in one passage.
 */
import type { Section } from "./extract.ts";

export const CHUNK_CHARS = 1_200;
export const OVERLAP_CHARS = 200;

export interface Chunk {
  location: string | null;
  content: string;
}

export function chunkSections(sections: readonly Section[], size = CHUNK_CHARS, overlap = OVERLAP_CHARS): Chunk[] {
  const chunks: Chunk[] = [];
  for (const section of sections) {
    const pieces = section.text
      .split(/\n\s*\n/)
      .map((p) => p.replace(/[ \t]+/g, " ").trim())
      .filter((p) => p !== "")
      .flatMap((p) => (p.length > size ? splitLong(p, size) : [p]));
    let current = "";
    for (const piece of pieces) {
      if (current !== "" && current.length + piece.length + 2 > size) {
        chunks.push({ location: section.location, content: current });
        current = tail(current, overlap);
      }
      current = current === "" ? piece : `${current}\n\n${piece}`;
    }
    if (current.trim() !== "") chunks.push({ location: section.location, content: current });
  }
  return chunks;
}

/** A paragraph longer than a passage, cut at sentence ends (or spaces) into pieces of at most `size`. */
function splitLong(text: string, size: number): string[] {
  const sentences = text.match(/[^.!?]+[.!?]+["')\]]*\s*|[^.!?]+$/g) ?? [text];
  const out: string[] = [];
  let current = "";
  for (const sentence of sentences.flatMap((s) => (s.length > size ? hardSplit(s, size) : [s]))) {
    if (current.length + sentence.length > size && current !== "") {
      out.push(current.trim());
      current = "";
    }
    current += sentence;
  }
  if (current.trim() !== "") out.push(current.trim());
  return out;
}

function hardSplit(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** The last sentences of a passage, up to `chars`, to start the next one with. */
function tail(text: string, chars: number): string {
  if (chars <= 0) return "";
  const end = text.slice(-chars);
  const sentenceStart = end.search(/(?<=[.!?]\s)\S/);
  return sentenceStart >= 0 ? end.slice(sentenceStart) : "";
}
