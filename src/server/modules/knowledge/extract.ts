/**
 * Text out of a document, as sections that keep where they came from (a PDF's page, the heading
 * a passage sits under), with maintained libraries: unpdf (pdf.js) for PDF, mammoth for DOCX,
 * html-to-text for HTML, csv-parse for CSV. A failure here is the document's, not the server's:
 * `ExtractError` carries the sentence the page shows.
 */
import { parse as parseCsv } from "csv-parse/sync";
import { compile, type FormatCallback } from "html-to-text";
import mammoth from "mammoth";
import { extractText, getDocumentProxy } from "unpdf";
import { DOCUMENT_TYPES, KNOWLEDGE_TEXTS } from "../../../shared/knowledge.ts";

export type DocumentKind = "pdf" | "docx" | "html" | "markdown" | "text" | "csv";

export interface Section {
  /** "page 3", a heading, or null. */
  location: string | null;
  text: string;
}

export interface Extracted {
  sections: Section[];
  pages: number | null;
}

export class ExtractError extends Error {}

/** The kind of a file by its name's extension, else by its content type; null when neither is one we read. */
export function documentKind(name: string, contentType: string | null): DocumentKind | null {
  const ext = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase();
  const byExt: Record<string, DocumentKind> = { pdf: "pdf", docx: "docx", html: "html", htm: "html", md: "markdown", markdown: "markdown", txt: "text", csv: "csv" };
  if (ext && ext in DOCUMENT_TYPES) return byExt[ext]!;
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  const byType: Record<string, DocumentKind> = {
    "application/pdf": "pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/markdown": "markdown",
    "text/plain": "text",
    "text/csv": "csv",
  };
  return byType[type] ?? null;
}

export const KIND_LABEL: Record<DocumentKind, string> = { pdf: "PDF", docx: "DOCX", html: "HTML", markdown: "Markdown", text: "text", csv: "CSV" };

export async function extractDocument(bytes: Uint8Array, kind: DocumentKind): Promise<Extracted> {
  let result: Extracted;
  try {
    result = await extractBy(bytes, kind);
  } catch (err) {
    if (err instanceof ExtractError) throw err;
    throw new ExtractError(KNOWLEDGE_TEXTS.failedUnreadable(KIND_LABEL[kind]), { cause: err });
  }
  const sections = result.sections.map((s) => ({ ...s, text: s.text.replaceAll("\u0000", "").trim() })).filter((s) => s.text !== "");
  if (sections.length === 0) throw new ExtractError(kind === "pdf" ? KNOWLEDGE_TEXTS.failedPdfNoText : KNOWLEDGE_TEXTS.failedEmpty);
  return { sections, pages: result.pages };
}

async function extractBy(bytes: Uint8Array, kind: DocumentKind): Promise<Extracted> {
  switch (kind) {
    case "pdf": {
      // pdf.js takes ownership of the buffer it is given: a copy keeps the caller's intact.
      const pdf = await getDocumentProxy(new Uint8Array(bytes));
      const { totalPages, text } = await extractText(pdf, { mergePages: false });
      return { pages: totalPages, sections: text.map((t, i) => ({ location: `page ${i + 1}`, text: t })) };
    }
    case "docx": {
      const { value } = await mammoth.convertToHtml({ buffer: Buffer.from(bytes) });
      return { pages: null, sections: markdownSections(htmlToMarkdownish(value)) };
    }
    case "html":
      return { pages: null, sections: markdownSections(htmlToMarkdownish(utf8(bytes))) };
    case "markdown":
      return { pages: null, sections: markdownSections(utf8(bytes)) };
    case "text":
      return { pages: null, sections: [{ location: null, text: utf8(bytes) }] };
    case "csv":
      return { pages: null, sections: csvSections(utf8(bytes)) };
  }
}

function utf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ExtractError("The file is not UTF-8 text.");
  }
}

/** Headings become "# Heading" lines, so HTML and DOCX split along them like Markdown. */
const heading: FormatCallback = (elem, walk, builder, options) => {
  const level = Number(/^h(\d)$/i.exec(elem.name ?? "")?.[1] ?? 1);
  builder.openBlock({ leadingLineBreaks: (options.leadingLineBreaks as number | undefined) ?? 2 });
  builder.addInline(`${"#".repeat(level)} `);
  walk(elem.children, builder);
  builder.closeBlock({ trailingLineBreaks: (options.trailingLineBreaks as number | undefined) ?? 2 });
};

const toText = compile({
  wordwrap: false,
  formatters: { heading },
  selectors: [
    ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, format: "heading" })),
    { selector: "a", options: { ignoreHref: true } },
    { selector: "img", format: "skip" },
    { selector: "nav", format: "skip" },
    { selector: "script", format: "skip" },
    { selector: "style", format: "skip" },
  ],
});

function htmlToMarkdownish(html: string): string {
  return toText(html);
}

/** Splits at "#" headings; each section is named by its heading (the text before the first has none). */
export function markdownSections(text: string): Section[] {
  const sections: Section[] = [];
  let location: string | null = null;
  let lines: string[] = [];
  const flush = () => {
    if (lines.join("").trim() !== "") sections.push({ location, text: lines.join("\n") });
    lines = [];
  };
  for (const line of text.split(/\r?\n/)) {
    const h = /^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (h) {
      flush();
      location = h[1]!.trim();
      // The heading stays in the text: its words are often what a question asks about.
      lines.push(location);
    } else {
      lines.push(line);
    }
  }
  flush();
  return sections;
}

/** Each row as "column: value" pairs, one paragraph per row, so a row is never split from its header. */
function csvSections(text: string): Section[] {
  const rows = parseCsv(text, { bom: true, skip_empty_lines: true, relax_column_count: true }) as string[][];
  const [header, ...body] = rows;
  if (!header) return [];
  if (body.length === 0) return [{ location: null, text: header.join(", ") }];
  const paragraphs = body.map((row) => row.map((v, i) => `${header[i] ?? `column ${i + 1}`}: ${v}`).join("; "));
  return [{ location: null, text: paragraphs.join("\n\n") }];
}
