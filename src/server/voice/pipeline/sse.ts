/** The `data:` payloads of a server-sent-events body, in order (both model protocols stream this way). */
export async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true });
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
      if (line.startsWith("data:")) yield line.slice(5).trim();
    }
  }
}
